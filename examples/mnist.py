"""Read MNIST from a local directory of IDX files (raw or gzip'd), with strict checks.

The IDX format (LeCun et al.) stores one n-dimensional array, big-endian:

    bytes 0-1   zero
    byte  2     element type: 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32,
                0x0D float32, 0x0E float64
    byte  3     number of dimensions d
    then d      uint32 sizes, then prod(sizes) elements of that type, row-major.

So an MNIST image file starts with the magic number 0x00000803 (uint8, 3-d: count, rows,
columns) and a label file with 0x00000801 (uint8, 1-d: count).  `read_idx` checks the
magic, the type code and that the file holds exactly the bytes the header declares;
`load_mnist` also checks that the images and labels agree and that labels are digits.
Every problem is an `IDXError` (a ValueError) naming the file and what is wrong.

A file compressed with gzip is recognised by its first two bytes (1f 8b), whatever its
name.  Nothing is downloaded: point `load_mnist` at a directory that holds the four
standard files, e.g. `train-images-idx3-ubyte.gz` (the names with a '.' before 'idx',
as some mirrors spell them, are found too).
"""

import gzip
import math
import os

import numpy as np

IDX_TYPES = {
    0x08: np.dtype(">u1"),
    0x09: np.dtype(">i1"),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}
IMAGES_MAGIC = 0x00000803
LABELS_MAGIC = 0x00000801
SPLITS = {"train": ("train-images", "train-labels"), "test": ("t10k-images", "t10k-labels")}
_GZIP_MAGIC = b"\x1f\x8b"


class IDXError(ValueError):
    """An IDX file is malformed or is not the MNIST file it should be."""


def parse_idx(data: bytes, name: str = "<bytes>") -> np.ndarray:
    """The array stored in the IDX bytes `data` (already decompressed).

    Parameters
    ----------
    data : bytes
        The whole file.
    name : str
        Used in error messages.

    Returns
    -------
    ndarray
        Native byte order, shape from the header.

    Raises
    ------
    IDXError
        If the header is short or malformed, the type code is unknown, or the data is
        shorter or longer than the header declares.
    """
    if len(data) < 4:
        raise IDXError(f"{name}: {len(data)} bytes is too short for an IDX header (needs 4)")
    if data[0] != 0 or data[1] != 0:
        raise IDXError(
            f"{name}: not an IDX file: the magic number must start with two zero bytes, "
            f"got {data[:4].hex()}"
        )
    code, ndim = data[2], data[3]
    if code not in IDX_TYPES:
        known = ", ".join(f"0x{c:02X}" for c in IDX_TYPES)
        raise IDXError(f"{name}: unknown IDX element type 0x{code:02X} (known: {known})")
    header = 4 + 4 * ndim
    if len(data) < header:
        raise IDXError(
            f"{name}: header declares {ndim} dimensions ({header} header bytes) but the file "
            f"has only {len(data)} bytes"
        )
    shape = tuple(int(s) for s in np.frombuffer(data, dtype=">u4", count=ndim, offset=4))
    dtype = IDX_TYPES[code]
    expected = math.prod(shape) * dtype.itemsize
    found = len(data) - header
    if found != expected:
        what = "truncated" if found < expected else "has trailing bytes"
        raise IDXError(
            f"{name}: {what}: header shape {shape} of {dtype.name} needs {expected} data bytes, "
            f"found {found}"
        )
    array = np.frombuffer(data, dtype=dtype, offset=header).reshape(shape)
    return array.astype(dtype.newbyteorder("="))


def read_idx(path) -> tuple[np.ndarray, int]:
    """The array in the IDX file `path` (gzip'd or raw) and its 4-byte magic number.

    Raises
    ------
    IDXError
        If the file is not valid IDX or a gzip file is corrupt.
    """
    path = os.fspath(path)
    with open(path, "rb") as handle:
        data = handle.read()
    if data[:2] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as error:
            raise IDXError(f"{path}: corrupt gzip data ({error})") from None
    array = parse_idx(data, path)
    return array, int.from_bytes(data[:4], "big")


def find_mnist_files(directory, split: str = "train") -> tuple[str, str]:
    """Paths of the images and labels files of `split` ('train' or 'test') in `directory`.

    Raises
    ------
    ValueError
        If `split` is unknown.
    FileNotFoundError
        If a file is missing, listing the names that were looked for.
    """
    if split not in SPLITS:
        raise ValueError(f"find_mnist_files: split must be 'train' or 'test', got {split!r}")
    paths = []
    for stem, dims in zip(SPLITS[split], ("idx3", "idx1")):
        names = [f"{stem}{sep}{dims}-ubyte{ext}" for sep in ("-", ".") for ext in ("", ".gz")]
        found = [os.path.join(directory, n) for n in names if os.path.isfile(os.path.join(directory, n))]
        if not found:
            raise FileNotFoundError(
                f"MNIST {split} file not found in {directory!r}: looked for {', '.join(names)}"
            )
        paths.append(found[0])
    return paths[0], paths[1]


def has_mnist(directory) -> bool:
    """True if `directory` holds all four MNIST files (their contents are not checked)."""
    try:
        for split in SPLITS:
            find_mnist_files(directory, split)
    except FileNotFoundError:
        return False
    return True


def load_mnist(directory, split: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """Images (n, rows, cols) uint8 and labels (n,) uint8 of an MNIST split.

    Parameters
    ----------
    directory : str or path
        Holds the standard IDX files, raw or gzip'd.
    split : {'train', 'test'}

    Returns
    -------
    images : ndarray of uint8, shape (n, rows, cols)
    labels : ndarray of uint8, shape (n,), values 0 .. 9

    Raises
    ------
    FileNotFoundError
        If a file is missing.
    IDXError
        If a file is malformed, has the wrong magic number (e.g. images and labels
        swapped), or the two files disagree on the number of examples.
    """
    images_path, labels_path = find_mnist_files(directory, split)
    images, magic = read_idx(images_path)
    if magic != IMAGES_MAGIC:
        raise IDXError(
            f"{images_path}: magic number 0x{magic:08X}, expected 0x{IMAGES_MAGIC:08X} "
            f"(3-d uint8 images)"
        )
    labels, magic = read_idx(labels_path)
    if magic != LABELS_MAGIC:
        raise IDXError(
            f"{labels_path}: magic number 0x{magic:08X}, expected 0x{LABELS_MAGIC:08X} (1-d uint8 labels)"
        )
    if len(images) != len(labels):
        raise IDXError(
            f"MNIST {split}: {len(images)} images in {images_path} but {len(labels)} labels in "
            f"{labels_path}"
        )
    if labels.size and labels.max() > 9:
        raise IDXError(f"{labels_path}: labels must be digits 0..9, found {int(labels.max())}")
    return images, labels
