"""`V.linalg`: linear algebra under NumPy's `np.linalg` names, from the op families in ops/.

Stacked matrices work as in NumPy: the last two axes are the matrix, the others a batch.
"""

from .ops import decompositions, eigen, inverses, linalg_api, norms
from .ops.decompositions import *  # noqa: F403
from .ops.eigen import *  # noqa: F403
from .ops.inverses import *  # noqa: F403
from .ops.linalg_api import *  # noqa: F403
from .ops.matmul import matmul
from .ops.norms import *  # noqa: F403

__all__ = ["matmul", *inverses.__all__, *norms.__all__, *decompositions.__all__, *eigen.__all__,
           *linalg_api.__all__]
