"""save_weights / load_weights: round trip, keys, all-or-nothing loading, atomic saving."""

import os
import zipfile

import numpy as np
import pytest

import function as F
import layers as L
import variable as V


class Net(L.Model):
    """Linear, BatchNorm (with buffers) and an LSTM, to cover every kind of state."""

    def __init__(self, hidden=4):
        super().__init__()
        self.l1 = L.Linear(hidden)
        self.bn = L.BatchNorm()
        self.rnn = L.LSTM(3)
        self.l2 = L.Linear(2)

    def forward(self, x):
        self.rnn.reset_state()
        return self.l2(self.rnn(F.relu(self.bn(self.l1(x)))))


def _built(seed, rng_data, hidden=4, dtype=np.float64):
    L.seed(seed)
    model = Net(hidden)
    x = V.Variable(rng_data.standard_normal((5, 3)).astype(dtype))  # where GENGRAD_DEVICE puts data
    model(x)                                                        # creates the lazy parameters
    return model


def _snapshot(model):
    """Every array of the model, with its identity."""
    state = {k: (p.data, p.data.copy()) for k, p in model.named_params()}
    state.update({k: (b, b.copy()) for k, b in model.named_buffers()})
    return state


def _assert_unchanged(model, snapshot):
    now = {k: p.data for k, p in model.named_params()}
    now.update(dict(model.named_buffers()))
    assert now.keys() == snapshot.keys()
    for key, (array, copy) in snapshot.items():
        assert now[key] is array, key
        np.testing.assert_array_equal(now[key], copy, err_msg=key)


KEYS = ["l1/W", "l1/b", "bn/gamma", "bn/beta", "rnn/h2h/W", "rnn/x2h/W", "rnn/x2h/b", "l2/W", "l2/b",
        "bn/avg_mean", "bn/avg_var"]


def test_round_trip_gives_identical_outputs(tmp_path, rng, on_device):
    source = _built(0, rng)
    path = tmp_path / "weights.npz"
    source.save_weights(path)
    with np.load(path, allow_pickle=False) as archive:
        assert sorted(archive.files) == sorted(KEYS)
        np.testing.assert_array_equal(archive["l1/W"], source.l1.W.data)
    target = _built(1, rng)
    assert not np.array_equal(target.l1.W.data, source.l1.W.data)
    target.load_weights(str(path))
    x = on_device(rng.standard_normal((4, 3)))
    with V.test_mode():                              # uses the loaded running statistics
        np.testing.assert_array_equal(target(x).data, source(x).data)
    np.testing.assert_array_equal(target(x).data, source(x).data)
    for (k1, p1), (k2, p2) in zip(source.named_params(), target.named_params()):
        assert k1 == k2 and p1 is not p2 and p1.data is not p2.data


def test_module_functions_and_float32(tmp_path, rng, on_device):
    source = _built(0, rng, dtype=np.float32)
    L.save_weights(source, tmp_path / "w32.npz")
    target = _built(3, rng, dtype=np.float32)
    L.load_weights(target, tmp_path / "w32.npz")
    assert all(p.dtype == np.float32 for p in target.params())
    x = on_device(rng.standard_normal((2, 3)).astype(np.float32))
    np.testing.assert_array_equal(target(x).data, source(x).data)


def _write_other(tmp_path, rng, **kwargs):
    other = _built(5, rng, **kwargs)
    path = tmp_path / "other.npz"
    other.save_weights(path)
    return path


@pytest.mark.parametrize("make_file, match", [
    (lambda tmp_path, rng: _write_other(tmp_path, rng, hidden=6),
     r"parameter 'l1/W' is \(3, 4\) float64 in the model but \(3, 6\) float64"),
    (lambda tmp_path, rng: _write_other(tmp_path, rng, dtype=np.float32),
     r"parameter 'l1/W' is \(3, 4\) float64 in the model but \(3, 4\) float32"),
])
def test_shape_or_dtype_mismatch_raises_and_changes_nothing(tmp_path, rng, make_file, match):
    model = _built(0, rng)
    snapshot = _snapshot(model)
    path = make_file(tmp_path, rng)
    with pytest.raises(ValueError, match=match):
        model.load_weights(path)
    _assert_unchanged(model, snapshot)


def _rewrite_without(path, drop=(), add=None):
    with np.load(path) as archive:
        arrays = {k: archive[k] for k in archive.files if k not in drop}
    arrays.update(add or {})
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)


def test_missing_key_raises_and_changes_nothing(tmp_path, rng):
    path = _write_other(tmp_path, rng)
    _rewrite_without(path, drop=("rnn/x2h/b", "bn/avg_var"))
    model = _built(0, rng)
    snapshot = _snapshot(model)
    with pytest.raises(ValueError, match=r"missing from the file: 'bn/avg_var', 'rnn/x2h/b'"):
        model.load_weights(path)
    _assert_unchanged(model, snapshot)


def test_extra_key_raises_and_changes_nothing(tmp_path, rng):
    path = _write_other(tmp_path, rng)
    _rewrite_without(path, add={"l3/W": np.zeros((2, 2))})
    model = _built(0, rng)
    snapshot = _snapshot(model)
    with pytest.raises(ValueError, match=r"in the file but not in the model: 'l3/W'"):
        model.load_weights(path)
    _assert_unchanged(model, snapshot)


def test_a_model_that_has_not_run_yet_loads_without_a_forward_pass(tmp_path, rng, on_device):
    source = _built(0, rng)
    path = tmp_path / "w.npz"
    source.save_weights(path)
    fresh = Net()                                   # l1, bn and rnn/x2h have no parameters yet
    fresh.load_weights(path)
    assert [k for k, _ in fresh.named_params()] == [k for k, _ in source.named_params()]
    x = on_device(rng.standard_normal((4, 3)))
    np.testing.assert_array_equal(fresh(x).data, source(x).data)


def test_another_architecture_is_refused_by_name_and_unsaved_buffers_are_explained(tmp_path, rng):
    path = _write_other(tmp_path, rng)
    lazy = L.MLP((4, 2))
    with pytest.raises(ValueError, match=r"missing from the file: 'l0/W', 'l0/b'; in the file but not in "
                                         r"the model: 'bn/avg_mean'.*\(no layer of the model has that"):
        lazy.load_weights(path)
    assert lazy.l0.W is None and lazy.l1.W is None
    with pytest.raises(ValueError, match="save_weights: buffer 'bn/avg_mean' is not initialised yet"):
        Net().save_weights(tmp_path / "never.npz")
    assert not (tmp_path / "never.npz").exists()


def _truncated(tmp_path, rng):
    path = _write_other(tmp_path, rng)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def _garbage(tmp_path, rng):
    path = tmp_path / "garbage.npz"
    path.write_bytes(rng.bytes(300))
    return path


def _empty(tmp_path, rng):
    path = tmp_path / "empty.npz"
    path.write_bytes(b"")
    return path


def _single_array(tmp_path, rng):
    path = tmp_path / "single.npz"
    with open(path, "wb") as handle:
        np.save(handle, np.zeros(3))
    return path


def _pickled(tmp_path, rng):
    path = _write_other(tmp_path, rng)
    _rewrite_without(path, drop=("l1/W",), add={"l1/W": np.array([{"a": 1}], dtype=object)})
    return path


def _corrupted_member(tmp_path, rng):
    path = _write_other(tmp_path, rng)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("l2/W.npy")
    end = info.header_offset + 30 + len(info.filename) + len(info.extra) + info.compress_size
    data[end - 3] ^= 0xFF                             # flip a byte of W's values: the CRC no longer matches
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("make_file, match", [
    (_truncated, "is not a valid .npz weights archive"),
    (_garbage, "is not a valid .npz weights archive"),
    (_empty, "is not a valid .npz weights archive"),
    (_single_array, "holds a single array, not an .npz archive"),
    (_pickled, "entry 'l1/W' of .* cannot be read"),
    (_corrupted_member, "entry 'l2/W' of .* cannot be read"),
])
def test_invalid_files_raise_and_change_nothing(tmp_path, rng, make_file, match):
    model = _built(0, rng)
    snapshot = _snapshot(model)
    path = make_file(tmp_path, rng)
    with pytest.raises(ValueError, match=match):
        model.load_weights(path)
    _assert_unchanged(model, snapshot)


def test_missing_file_raises_file_not_found(tmp_path, rng):
    with pytest.raises(FileNotFoundError):
        _built(0, rng).load_weights(tmp_path / "nothing.npz")


def test_interrupted_save_keeps_the_old_file(tmp_path, rng, monkeypatch):
    path = tmp_path / "w.npz"
    old = _built(0, rng)
    old.save_weights(path)
    before = path.read_bytes()
    calls = []
    write_array = np.lib.format.write_array

    def dies_on_the_third_array(handle, array, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            handle.write(b"half an array")
            raise KeyboardInterrupt("simulated interruption")
        return write_array(handle, array, **kwargs)

    monkeypatch.setattr(np.lib.format, "write_array", dies_on_the_third_array)
    new = _built(1, rng)
    with pytest.raises(KeyboardInterrupt, match="simulated interruption"):
        new.save_weights(path)
    assert len(calls) == 3
    assert path.read_bytes() == before               # the old file, byte for byte
    assert os.listdir(tmp_path) == ["w.npz"]         # and no temporary left behind
    monkeypatch.undo()
    check = _built(2, rng)
    check.load_weights(path)
    np.testing.assert_array_equal(check.l1.W.data, old.l1.W.data)


def test_save_overwrites_and_fails_cleanly_in_a_missing_directory(tmp_path, rng):
    path = tmp_path / "w.npz"
    _built(0, rng).save_weights(path)
    second = _built(1, rng)
    second.save_weights(path)
    third = _built(2, rng)
    third.load_weights(path)
    np.testing.assert_array_equal(third.l1.W.data, second.l1.W.data)
    with pytest.raises(FileNotFoundError):
        second.save_weights(tmp_path / "no" / "such" / "w.npz")
    assert sorted(os.listdir(tmp_path)) == ["w.npz"]


def test_a_missing_directory_is_named_not_the_temporary_file(tmp_path, rng):
    model = _built(0, rng)
    with pytest.raises(FileNotFoundError) as info:
        model.save_weights(tmp_path / "no" / "such" / "w")
    message = str(info.value)
    assert message.startswith("save_weights: cannot write ")
    assert f"the directory {str(tmp_path / 'no' / 'such')!r} does not exist" in message
    assert f"({str(tmp_path / 'no')!r} is missing)" in message
    assert "os.makedirs(" in message and ".tmp" not in message
    (tmp_path / "file").write_text("not a directory")
    with pytest.raises(NotADirectoryError, match="save_weights: cannot write .* is a file, not a directory"):
        model.save_weights(tmp_path / "file" / "w.npz")
    (tmp_path / "d.npz").mkdir()
    with pytest.raises(IsADirectoryError, match=r"save_weights: cannot write .*d\.npz': it is a directory"):
        model.save_weights(tmp_path / "d")
    assert sorted(os.listdir(tmp_path)) == ["d.npz", "file"]


@pytest.mark.parametrize("name", ["w", "w.npz", "w.weights"])
def test_npz_is_appended_on_save_and_on_load_alike(tmp_path, rng, name):
    source = _built(0, rng)
    source.save_weights(str(tmp_path / name))           # np.savez's rule: '.npz' unless already there
    expected = name if name.endswith(".npz") else name + ".npz"
    assert os.listdir(tmp_path) == [expected]
    target = _built(1, rng)
    target.load_weights(tmp_path / name)                 # the same name reads the same file
    np.testing.assert_array_equal(target.l1.W.data, source.l1.W.data)
    L.load_weights(_built(2, rng), tmp_path / expected)
    with np.load(tmp_path / expected) as archive:       # what np.load reads too
        assert sorted(archive.files) == sorted(KEYS)


def test_a_file_saved_without_the_suffix_is_pointed_at(tmp_path, rng):
    source = _built(0, rng)
    source.save_weights(tmp_path / "m")
    (tmp_path / "m.npz").rename(tmp_path / "m")         # a file named as given, by hand or by np.save
    with pytest.raises(FileNotFoundError, match=r"load_weights: no such file: '.*m\.npz'; '.*m' exists "
                                                r"without the suffix: .*rename it to '.*m\.npz'"):
        _built(1, rng).load_weights(tmp_path / "m")
    with pytest.raises(FileNotFoundError, match=r"load_weights: no such file: '.*other\.npz'$"):
        _built(1, rng).load_weights(tmp_path / "other")


def test_a_path_that_is_not_a_path_names_the_function_and_the_order(rng):
    model = _built(0, rng)
    with pytest.raises(TypeError, match=r"^save_weights: path must be a str or os\.PathLike, got int$"):
        model.save_weights(3)
    with pytest.raises(TypeError, match=r"save_weights: .* got Net \(write model\.save_weights\(path\) "
                                        r"or L\.save_weights\(model, path\)\)"):
        L.save_weights("w.npz", model)


def test_a_trained_model_pickles_and_copies_with_its_gradients(tmp_path):
    # pickle and copy.deepcopy keep a leaf's data, name and gradient (a create_graph=True
    # gradient as its values); it failed on the weak references of the backward pass that
    # made the gradient. A Variable made by an op is refused, as PyTorch refuses non-leaves.
    import copy
    import pickle
    model, x = L.MLP((8, 2)), V.Variable(np.linspace(-1.0, 1.0, 12).reshape(3, 4))
    loss = F.mean_squared_error(model(x), V.Variable(np.zeros((3, 2))))
    model.cleargrads()
    loss.backward(create_graph=True)
    on_host = not V.backend.is_device_array(x.data)    # (the CPU stand-in's arrays do not pickle)
    for twin in ([pickle.loads(pickle.dumps(model))] if on_host else []) + [copy.deepcopy(model)]:
        np.testing.assert_array_equal(twin(x).data, model(x).data)
        for (path, p), (_, q) in zip(model.named_params(), twin.named_params()):
            assert q.grad.creator is None and q.name == p.name, path
            np.testing.assert_array_equal(q.grad.data, p.grad.data)
    y = model(x)
    assert copy.copy(y).creator is y.creator                  # (a shallow copy: what matplotlib makes)
    for copying in (pickle.dumps, copy.deepcopy):             # (refused before any array is met)
        with pytest.raises(TypeError, match=r"pickle / copy: this Variable was made by Linear and "
                                            r"carries its graph.*x\.detach\(\)"):
            copying(y)
    assert copy.deepcopy(y.detach()).creator is None
    # NumPy's savers write a Variable's values, as np.asarray reads them
    np.save(tmp_path / "y.npy", y)
    np.savez(tmp_path / "y.npz", y=y)
    np.savetxt(tmp_path / "y.txt", y)
    values = V.backend.to_cpu(y.data)                          # (on a device, saved from the host)
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), values)
    with np.load(tmp_path / "y.npz") as archive:
        np.testing.assert_array_equal(archive["y"], values)
    np.testing.assert_allclose(np.loadtxt(tmp_path / "y.txt"), values, rtol=1e-15)
