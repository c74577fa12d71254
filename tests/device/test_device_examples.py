"""The training examples with --device gpu, on the CPU stand-in for CuPy: the same losses
as on the CPU, epoch by epoch (the timings aside), and without a GPU a clear exit."""

import re

import pytest

from examples import digits_mlp, lstm_sine, spiral_mlp
from variable import backend


def progress(out):
    """The printed lines without their timings."""
    return [re.sub(r"time [0-9.]+s", "", line) for line in out.splitlines()]


@pytest.mark.parametrize("example, argv", [
    (spiral_mlp, ["--epochs", "3"]),
    (digits_mlp, ["--epochs", "1", "--train-limit", "200", "--test-limit", "100"]),
    (lstm_sine, ["--epochs", "2", "--samples", "200"]),
], ids=["spiral_mlp", "digits_mlp", "lstm_sine"])
def test_training_on_the_device_prints_what_the_cpu_prints(example, argv, gpu, tmp_path, capsys):
    assert example.main(argv + ["--out", str(tmp_path / "cpu")]) == 0
    on_cpu = progress(capsys.readouterr().out)
    assert example.main(argv + ["--out", str(tmp_path / "gpu"), "--device", "gpu"]) == 0
    on_gpu = progress(capsys.readouterr().out)
    assert any(line.startswith("epoch") for line in on_cpu)
    assert [line.replace(str(tmp_path / "gpu"), "") for line in on_gpu] == \
           [line.replace(str(tmp_path / "cpu"), "") for line in on_cpu]


def test_without_cupy_the_example_exits_naming_it(capsys):
    if backend._GPU["module"] is not None:
        pytest.skip("a GPU module is registered in this session")
    try:
        import cupy  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("CuPy is installed here")
    with pytest.raises(SystemExit) as exit_info:
        spiral_mlp.main(["--device", "gpu"])
    assert exit_info.value.code == 2
    assert "--device gpu: CuPy is not installed" in capsys.readouterr().err
