"""Weight files that are not what they claim: each load raises a clear error and changes nothing.

tests/layers/test_layer_serialization.py already covers a round trip, a file cut in half,
random bytes, an empty file, a plain .npy, a pickled member, one flipped data byte, a
missing and an extra key, and a shape or dtype mismatch of a parameter.  Added here:

- every single-byte corruption of a small archive, at every offset (zip headers, central
  directory, .npy headers, data): a ValueError with the model untouched, or, where the byte
  does not matter (a timestamp), a load that gives exactly the saved weights;
- every truncation length;
- a text file, a zip of text files, another model's weights, a compressed archive (which
  loads) and a corrupted one (which does not), a buffer of the wrong shape, a 0-d array
  for a vector, a directory (under either name the '.npz' rule leads to it);
- after any failed load the model still loads a good file;
- the same corruptions and truncations of a checkpoint, loaded into a model that has not
  run yet: refused with neither model nor optimizer changed (no layer half built), or
  loaded with exactly the saved weights and optimizer state.
"""

import zipfile

import numpy as np
import pytest

import layers as L
import optimizers as O


def small_model(seed):
    """Linear (W, b) and BatchNorm (gamma, beta and the buffers avg_mean, avg_var), built."""
    model = L.Sequential(L.Linear(2, in_size=3, rng=np.random.default_rng(seed)), L.BatchNorm())
    model(np.random.default_rng(seed).standard_normal((4, 3)))
    for _, buffer in model.named_buffers():
        buffer += seed + 0.5                     # make the buffers differ between seeds too
    return model


def arrays_of(model):
    state = {key: p.data for key, p in model.named_params()}
    state.update(dict(model.named_buffers()))
    return state


def snapshot(model):
    return {key: (array, array.copy()) for key, array in arrays_of(model).items()}


def assert_unchanged(model, before):
    now = arrays_of(model)
    assert now.keys() == before.keys()
    for key, (array, copy) in before.items():
        assert now[key] is array, f"{key} was replaced"
        np.testing.assert_array_equal(now[key], copy, err_msg=key)


def assert_equals_source(model, source):
    expected = arrays_of(source)
    for key, array in arrays_of(model).items():
        np.testing.assert_array_equal(array, expected[key], err_msg=key)
        assert array.dtype == expected[key].dtype


@pytest.fixture
def saved(tmp_path):
    """(path, bytes) of the weights of small_model(1)."""
    path = tmp_path / "source.npz"
    small_model(1).save_weights(path)
    return path, path.read_bytes()


def _load_outcome(model, path):
    """'refused' (a ValueError naming load_weights) or 'loaded'; anything else propagates."""
    before = snapshot(model)
    try:
        model.load_weights(path)
    except ValueError as error:
        assert "load_weights" in str(error), error
        assert_unchanged(model, before)
        return "refused"
    return "loaded"


def _member_bytes(path):
    """Offsets of every stored member's bytes (its .npy header and its values) in the archive."""
    data = path.read_bytes()
    offsets = set()
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            header = info.header_offset            # the local header: 30 bytes, name, its own extra
            name_length = int.from_bytes(data[header + 26:header + 28], "little")
            extra_length = int.from_bytes(data[header + 28:header + 30], "little")
            start = header + 30 + name_length + extra_length
            offsets.update(range(start, start + info.compress_size))
    return offsets


def test_every_single_byte_corruption_is_refused_or_harmless(tmp_path, saved):
    path, data = saved
    source = small_model(1)
    model = small_model(0)
    target = tmp_path / "flipped.npz"
    loaded = []
    for offset in range(len(data)):
        corrupted = bytearray(data)
        corrupted[offset] ^= 0x55
        target.write_bytes(bytes(corrupted))
        if _load_outcome(model, target) == "loaded":   # a byte nobody reads (a timestamp, a zip64
            assert_equals_source(model, source)        # size the directory overrides): exact weights
            loaded.append(offset)
            model = small_model(0)
    stored = _member_bytes(path)
    assert len(stored) > len(data) / 2
    assert not stored & set(loaded), "a corrupted array or .npy header was loaded"


def test_every_truncation_is_refused(tmp_path, saved):
    _, data = saved
    model = small_model(0)
    target = tmp_path / "cut.npz"
    for length in range(len(data)):
        target.write_bytes(data[:length])
        assert _load_outcome(model, target) == "refused", length
    target.write_bytes(data)                     # the whole file still loads afterwards
    model.load_weights(target)
    assert_equals_source(model, small_model(1))


def _text(tmp_path):
    path = tmp_path / "weights.npz"
    path.write_text("l0/W: [[1, 2], [3, 4], [5, 6]]\nthese are not weights\n")
    return path


def _zip_of_text(tmp_path):
    path = tmp_path / "text.npz"
    with zipfile.ZipFile(path, "w") as archive:
        for key in arrays_of(small_model(0)):
            archive.writestr(key + ".npy", "not an array")
    return path


def _zip_with_a_text_member(tmp_path):
    path = tmp_path / "notes.npz"
    small_model(1).save_weights(path)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("README.txt", "weights of the small model")
    return path


def _another_model(tmp_path):
    path = tmp_path / "other.npz"
    other = L.MLP((5, 4, 2), rng=np.random.default_rng(0))
    other(np.ones((1, 3)))
    other.save_weights(path)
    return path


def _rewritten(tmp_path, **replace):
    path = tmp_path / "rewritten.npz"
    arrays = {k: a.copy() for k, a in arrays_of(small_model(1)).items()}
    arrays.update(replace)
    np.savez(path, **arrays)
    return path


def _corrupted_compressed(tmp_path):
    path = tmp_path / "compressed.npz"
    np.savez_compressed(path, **arrays_of(small_model(1)))
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("l0/W.npy")
    header = info.header_offset
    start = header + 30 + int.from_bytes(data[header + 26:header + 28], "little") + int.from_bytes(
        data[header + 28:header + 30], "little")
    data[start + info.compress_size // 2] ^= 0xFF          # inside the deflated stream
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("make_file, match", [
    (_text, "not a valid .npz"),
    (_zip_of_text, "cannot be read|not a valid"),
    (_zip_with_a_text_member, "README.txt"),
    (_another_model, "does not match the model"),
    (lambda p: _rewritten(p, **{"l1/avg_var": np.ones(3)}), "'l1/avg_var' is \\(2,\\)"),
    (lambda p: _rewritten(p, **{"l0/b": np.array(0.5)}), "'l0/b' is \\(2,\\)"),
    (lambda p: _rewritten(p, **{"l0/W": np.ones((1, 3, 2))}), "'l0/W' is \\(3, 2\\)"),
    (lambda p: _rewritten(p, **{"l1/gamma": np.ones(2, dtype=np.int64)}), "'l1/gamma' is \\(2,\\) float64"),
    (_corrupted_compressed, "cannot be read|not a valid"),
], ids=["text file", "zip of text", "zip with an extra text member", "another model", "buffer shape",
        "0-d for a vector", "extra leading axis", "integer weights", "corrupted compressed member"])
def test_foreign_files_are_refused_and_change_nothing(tmp_path, make_file, match, saved):
    model = small_model(0)
    before = snapshot(model)
    path = make_file(tmp_path)
    with pytest.raises(ValueError, match=match):
        model.load_weights(path)
    assert_unchanged(model, before)
    model.load_weights(saved[0])                 # and a good file still loads afterwards
    assert_equals_source(model, small_model(1))


def test_a_compressed_archive_with_the_right_arrays_loads(tmp_path):
    path = tmp_path / "compressed.npz"
    np.savez_compressed(path, **arrays_of(small_model(1)))
    model = small_model(0)
    model.load_weights(path)
    assert_equals_source(model, small_model(1))


def test_a_directory_raises_an_os_error_and_changes_nothing(tmp_path):
    model = small_model(0)
    before = snapshot(model)
    with pytest.raises(OSError):
        model.load_weights(tmp_path)             # reads tmp_path + '.npz', which is missing
    (tmp_path / "weights.npz").mkdir()
    for name in ("weights", "weights.npz"):      # the '.npz' rule leads both names to the directory
        with pytest.raises(IsADirectoryError):
            model.load_weights(tmp_path / name)
    with pytest.raises(IsADirectoryError, match="save_weights: cannot write .*: it is a directory"):
        model.save_weights(tmp_path / "weights")
    assert_unchanged(model, before)
    assert [p.name for p in tmp_path.iterdir()] == ["weights.npz"]


# ----- checkpoints: the same file checks, and the optimizer untouched too -------------------------
def _lazy_pair():
    """A small model not run yet (sized by whatever it loads) with an Adam set up on it."""
    model = L.Sequential(L.Linear(2, rng=np.random.default_rng(9)), L.BatchNorm())
    return model, O.Adam(lr=0.01).setup(model)


@pytest.fixture
def checkpoint(tmp_path):
    """(path, bytes, state) of small_model(1) after two Adam steps; state: every saved array."""
    model = small_model(1)
    opt = O.Adam(lr=0.01).setup(model)
    for _ in range(2):
        loss = (model(np.random.default_rng(2).standard_normal((4, 3))) ** 2).sum()
        model.cleargrads()
        loss.backward()
        opt.update()
    path = tmp_path / "checkpoint.npz"
    L.save_checkpoint(path, model, opt)
    state = {"model/" + k: a for k, a in arrays_of(model).items()}
    state.update({"optimizer/" + k: a for k, a in opt.state_dict().items()})
    return path, path.read_bytes(), state


def _checkpoint_outcome(model, opt, path):
    """'refused' (a ValueError naming load_checkpoint, nothing changed) or 'loaded'."""
    try:
        L.load_checkpoint(path, model, opt)
    except ValueError as error:
        assert "load_checkpoint" in str(error), error
        assert not list(model.params()) and model.l1.avg_mean is None and not opt.state
        return "refused"
    return "loaded"


def _assert_checkpoint_equals(model, opt, state):
    now = {"model/" + k: a for k, a in arrays_of(model).items()}
    now.update({"optimizer/" + k: a for k, a in opt.state_dict().items()})
    assert now.keys() == state.keys()
    for key, array in state.items():
        np.testing.assert_array_equal(now[key], array, err_msg=key)
        assert now[key].dtype == array.dtype, key


def test_every_single_byte_corruption_of_a_checkpoint_is_refused_or_harmless(tmp_path, checkpoint):
    path, data, state = checkpoint
    model, opt = _lazy_pair()
    target = tmp_path / "flipped.npz"
    loaded = []
    for offset in range(len(data)):
        corrupted = bytearray(data)
        corrupted[offset] ^= 0x55
        target.write_bytes(bytes(corrupted))
        if _checkpoint_outcome(model, opt, target) == "loaded":
            _assert_checkpoint_equals(model, opt, state)
            loaded.append(offset)
            model, opt = _lazy_pair()
    assert not _member_bytes(path) & set(loaded), "a corrupted array or .npy header was loaded"


def test_every_truncation_of_a_checkpoint_is_refused(tmp_path, checkpoint):
    _, data, state = checkpoint
    model, opt = _lazy_pair()
    target = tmp_path / "cut.npz"
    for length in range(len(data)):
        target.write_bytes(data[:length])
        assert _checkpoint_outcome(model, opt, target) == "refused", length
    target.write_bytes(data)
    L.load_checkpoint(target, model, opt)
    _assert_checkpoint_equals(model, opt, state)
