"""save_checkpoint / load_checkpoint: a resumed run continues bit for bit; bad files change nothing."""

import os
import zipfile

import numpy as np
import pytest

import function as F
import layers as L
import optimizers as O
import variable as V


class Net(L.Model):
    """Lazily sized throughout (Linear, BatchNorm with buffers, LayerNorm), no randomness in forward."""

    def __init__(self):
        super().__init__()
        self.l1 = L.Linear(6)
        self.bn = L.BatchNorm()
        self.ln = L.LayerNorm()
        self.l2 = L.Linear(3)

    def forward(self, x):
        return self.l2(F.tanh(self.ln(self.bn(self.l1(x)))))


OPTIMIZERS = {
    "SGD": lambda: O.SGD(lr=0.1),
    "MomentumSGD": lambda: O.MomentumSGD(lr=0.05, momentum=0.9),
    "Nesterov": lambda: O.MomentumSGD(lr=0.05, momentum=0.8, nesterov=True),
    "AdaGrad": lambda: O.AdaGrad(lr=0.1),
    "RMSprop": lambda: O.RMSprop(lr=0.01),
    "RMSprop centered, momentum": lambda: O.RMSprop(lr=0.01, momentum=0.9, centered=True),
    "AdaDelta": lambda: O.AdaDelta(),
    "Adam": lambda: O.Adam(lr=0.01),
    "AdamW": lambda: O.AdamW(lr=0.01, weight_decay=0.1),
    "AMSGrad": lambda: O.Adam(lr=0.01, amsgrad=True),
    "Adamax": lambda: O.Adamax(lr=0.01),
    "RAdam": lambda: O.RAdam(lr=0.01),
    "NAdam": lambda: O.NAdam(lr=0.01),
}


def test_every_optimizer_class_is_covered():
    classes = {type(make()).__name__ for make in OPTIMIZERS.values()}
    assert classes | {"LBFGS"} == {name for name in O.__all__ if isinstance(getattr(O, name), type)
                                   and issubclass(getattr(O, name), O.Optimizer) and name != "Optimizer"}


def _lbfgs_updates(model, opt, n):
    """n L-BFGS updates on one fixed batch."""
    x, t = _batches()[0]

    def closure():
        loss = F.softmax_cross_entropy(model(V.Variable(x)), t)
        loss.backward()
        return loss

    for _ in range(n):
        opt.update(closure)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_saved_and_resumed_continues_bit_for_bit(tmp_path, line_search_fn):
    """Its history (full: 3 updates of 4 iterations, 3 remembered) is saved as each parameter's
    slices and the optimizer's global state, and joined back on loading."""
    def make():
        return O.LBFGS(lr=0.5, max_iter=4, history_size=3, line_search_fn=line_search_fn)

    first, opt1 = _setup(make, 0, HOOKS["no hooks"])
    _lbfgs_updates(first, opt1, 3)
    assert len(opt1.global_state["ro"]) == 3 and opt1.global_state["n_iter"] > 6
    L.save_checkpoint(tmp_path / "ckpt.npz", first, opt1)
    resumed, opt2 = _setup(make, 99, HOOKS["no hooks"])
    L.load_checkpoint(tmp_path / "ckpt.npz", resumed, opt2)
    _assert_same(_state(resumed, opt2), _state(first, opt1))
    _lbfgs_updates(first, opt1, 2)
    _lbfgs_updates(resumed, opt2, 2)
    _assert_same(_state(resumed, opt2), _state(first, opt1))
    assert opt1.global_state["func_evals"] == opt2.global_state["func_evals"] > 10


def test_an_lbfgs_history_that_is_not_whole_is_refused(tmp_path):
    model, opt = _setup(lambda: O.LBFGS(max_iter=3), 0, HOOKS["no hooks"])
    fresh_state = opt.state_dict()                   # before any update: no history, and it loads
    assert not [key for key in fresh_state if key.startswith("state/")]
    _lbfgs_updates(model, opt, 1)
    arrays = opt.state_dict()
    other, opt2 = _setup(lambda: O.LBFGS(max_iter=3), 0, HOOKS["no hooks"])
    other(np.ones((2, 4)))
    opt2.load_state_dict(fresh_state)
    short = {k: v for k, v in arrays.items() if k != "global/ro"}
    with pytest.raises(ValueError, match=r"the optimizer's global state lacks 'ro'"):
        opt2.load_state_dict(short)
    path = next(k for k in arrays if k.endswith("/dirs")).rsplit("/", 1)[0][len("state/"):]
    listed = np.array([p for p in arrays["params_with_state"] if p != path])
    partial = {k: v for k, v in arrays.items() if not k.startswith(f"state/{path}/")} | {
        "params_with_state": listed}
    with pytest.raises(ValueError, match=rf"the LBFGS history is not whole: it has no slices of {path}"):
        opt2.load_state_dict(partial)
    with pytest.raises(ValueError, match=r"LBFGS has strong_wolfe=True but the file was saved with "
                                         r"strong_wolfe=False"):
        O.LBFGS(max_iter=3, line_search_fn="strong_wolfe").setup(other).load_state_dict(arrays)
    assert opt2.global_state["n_iter"] == 0          # every refusal changed nothing


def _batches(dtype=np.float64):
    rng = np.random.default_rng(42)
    return [(rng.standard_normal((8, 4)).astype(dtype), rng.integers(0, 3, 8)) for _ in range(20)]


def _setup(make_opt, seed, hooks):
    L.seed(seed)
    model = Net()
    opt = make_opt().setup(model)
    for hook in hooks(model):
        opt.add_hook(hook)
    return model, opt


def _train(model, opt, batches):
    for x, t in batches:      # V.Variable: the inputs where new Variables go (GENGRAD_DEVICE)
        loss = F.softmax_cross_entropy(model(V.Variable(x)), t)
        model.cleargrads()
        loss.backward()
        opt.update()


def _state(model, opt):
    """Every array of model and optimizer, by name (Adam's step counts included)."""
    arrays = {"model/" + k: p.data for k, p in model.named_params()}
    arrays.update({"model/" + k: b for k, b in model.named_buffers()})
    arrays.update(opt.state_dict())
    return arrays


def _assert_same(a, b):
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
        assert a[key].dtype == b[key].dtype, key


HOOKS = {
    "no hooks": lambda model: [],
    "clip and decay": lambda model: [O.WeightDecay(1e-3), O.ClipGrad(0.5)],
    "frozen layer": lambda model: [O.FreezeParam(model.ln)],
}


@pytest.mark.parametrize("hooks", HOOKS.values(), ids=HOOKS.keys())
@pytest.mark.parametrize("make_opt", OPTIMIZERS.values(), ids=OPTIMIZERS.keys())
def test_ten_steps_saved_and_resumed_equal_twenty_steps(tmp_path, make_opt, hooks):
    batches = _batches()
    straight, opt = _setup(make_opt, 0, hooks)
    _train(straight, opt, batches)

    first, opt1 = _setup(make_opt, 0, hooks)
    _train(first, opt1, batches[:10])
    L.save_checkpoint(tmp_path / "ckpt.npz", first, opt1)
    resumed, opt2 = _setup(make_opt, 99, hooks)      # fresh and lazily sized: no dummy forward
    assert not list(resumed.params())
    L.load_checkpoint(tmp_path / "ckpt.npz", resumed, opt2)
    _assert_same(_state(resumed, opt2), _state(first, opt1))
    _train(resumed, opt2, batches[10:])

    _assert_same(_state(resumed, opt2), _state(straight, opt))
    x = V.Variable(batches[0][0])
    np.testing.assert_array_equal(resumed(x).data, straight(x).data)


@pytest.mark.parametrize("name", ["Adam", "MomentumSGD"])
def test_float32_training_resumes_bit_for_bit(tmp_path, name):
    batches = _batches(np.float32)
    straight, opt = _setup(OPTIMIZERS[name], 0, HOOKS["no hooks"])
    _train(straight, opt, batches)
    first, opt1 = _setup(OPTIMIZERS[name], 0, HOOKS["no hooks"])
    _train(first, opt1, batches[:10])
    L.save_checkpoint(tmp_path / "ckpt.npz", first, opt1)
    resumed, opt2 = _setup(OPTIMIZERS[name], 5, HOOKS["no hooks"])
    L.load_checkpoint(tmp_path / "ckpt.npz", resumed, opt2)
    _train(resumed, opt2, batches[10:])
    assert all(p.dtype == np.float32 for p in resumed.params())
    _assert_same(_state(resumed, opt2), _state(straight, opt))


def test_the_file_holds_weights_hyperparameters_and_state_by_parameter_path(tmp_path):
    model, opt = _setup(OPTIMIZERS["Adam"], 0, HOOKS["no hooks"])
    _train(model, opt, _batches()[:3])
    L.save_checkpoint(tmp_path / "ckpt.npz", model, opt)
    with np.load(tmp_path / "ckpt.npz", allow_pickle=False) as archive:
        files = set(archive.files)
        assert str(archive["optimizer/class"]) == "Adam"
        assert archive["optimizer/hyperparameters/lr"] == 0.01
        assert archive["optimizer/state/l1/W/t"] == 3
        np.testing.assert_array_equal(archive["optimizer/state/l1/W/m"], opt.state[model.l1.W]["m"])
        np.testing.assert_array_equal(archive["model/bn/avg_var"], model.bn.avg_var)
    assert {"model/l1/W", "model/bn/avg_mean", "optimizer/hyperparameters/beta2",
            "optimizer/state/l2/b/v"} <= files


def test_state_dict_round_trip_and_copies(tmp_path):
    model, opt = _setup(OPTIMIZERS["AdaDelta"], 0, HOOKS["no hooks"])
    _train(model, opt, _batches()[:2])
    state = opt.state_dict()
    state["state/l1/W/msg"] += 1.0                   # a copy: the optimizer is not touched
    assert not np.array_equal(opt.state[model.l1.W]["msg"], state["state/l1/W/msg"])
    other = O.AdaDelta().setup(model)
    other.load_state_dict(opt.state_dict())
    _assert_same(other.state_dict(), opt.state_dict())
    assert other.state[model.l1.W]["msg"] is not opt.state[model.l1.W]["msg"]


# ----- files that do not fit: refused, and nothing changes ------------------------------------------
def _saved(tmp_path, name="Adam"):
    model, opt = _setup(OPTIMIZERS[name], 0, HOOKS["no hooks"])
    _train(model, opt, _batches()[:3])
    path = tmp_path / "ckpt.npz"
    L.save_checkpoint(path, model, opt)
    return path


def _trained_pair(name="Adam"):
    model, opt = _setup(OPTIMIZERS[name], 3, HOOKS["no hooks"])
    _train(model, opt, _batches()[5:7])
    return model, opt


def _snapshot(model, opt):
    arrays = {k: (p.data, p.data.copy()) for k, p in model.named_params()}
    arrays.update({k: (b, None if b is None else b.copy()) for k, b in model.named_buffers()})
    state = {id(p): {k: (v, np.copy(v)) for k, v in s.items()} for p, s in opt.state.items()}
    return arrays, state, dict(opt.hyperparameters())


def _assert_unchanged(model, opt, before):
    arrays, state, hyper = before
    now = {k: p.data for k, p in model.named_params()}
    now.update(dict(model.named_buffers()))
    assert now.keys() == arrays.keys()
    for key, (array, copy) in arrays.items():
        assert now[key] is array, key
        if copy is not None:
            np.testing.assert_array_equal(array, copy, err_msg=key)
    assert {id(p) for p in opt.state} == state.keys()
    for param, entries in opt.state.items():
        assert entries.keys() == state[id(param)].keys()
        for key, value in entries.items():
            assert value is state[id(param)][key][0]
            np.testing.assert_array_equal(value, state[id(param)][key][1])
    assert opt.hyperparameters() == hyper


def _rewrite(path, drop=(), **replace):
    with np.load(path) as archive:
        arrays = {k: archive[k] for k in archive.files if k not in drop}
    arrays.update({k.replace("__", "/"): v for k, v in replace.items()})
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)
    return path


def _truncated(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def _flipped(path):
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("optimizer/state/l1/W/m.npy")
    end = info.header_offset + 30 + len(info.filename) + len(info.extra) + info.compress_size
    data[end - 3] ^= 0xFF
    path.write_bytes(bytes(data))
    return path


BAD = {
    "truncated": (_truncated, r"load_checkpoint: .* is not a valid .npz checkpoint"),
    "flipped byte": (_flipped, r"entry 'optimizer/state/l1/W/m' of .* cannot be read"),
    "missing state key": (lambda p: _rewrite(p, drop=("optimizer/state/l1/b/v",)),
                          r"optimizer state of parameter 'l1/b' lacks 'v'"),
    "all state of a parameter lost": (
        lambda p: _rewrite(p, drop=[f"optimizer/state/l1/b/{name}" for name in "mvt"]),
        r"the optimizer state of parameters \['l1/b'\] is missing, though the file lists them"),
    "unlisted state": (lambda p: _rewrite(p, optimizer__params_with_state=np.array(["l1/W"])),
                       r"parameters \['bn/beta', 'bn/gamma', 'l1/b', .*, 'ln/gamma'\] is in the file, which"),
    "no list of parameters with state": (lambda p: _rewrite(p, drop=("optimizer/params_with_state",)),
                                         r"has no 'params_with_state' entry"),
    "state of wrong shape": (lambda p: _rewrite(p, optimizer__state__l2__W__m=np.zeros((6, 2))),
                             r"entry 'state/l2/W/m' is \(6, 2\) float64, but its parameter is \(6, 3\)"),
    "state of wrong dtype": (lambda p: _rewrite(p, optimizer__state__l2__b__v=np.zeros(3, np.float32)),
                             r"entry 'state/l2/b/v' is \(3,\) float32, but its parameter is \(3,\) f"),
    "negative step count": (lambda p: _rewrite(p, optimizer__state__l1__W__t=np.array(-1)),
                            r"'state/l1/W/t' must be a count"),
    "unknown state name": (lambda p: _rewrite(p, optimizer__state__l1__W__velocity=np.zeros((4, 6))),
                           r"Adam keeps no state named 'velocity'"),
    "state of an unknown parameter": (lambda p: _rewrite(p, optimizer__state__l3__W__m=np.zeros(2)),
                                      r"is for parameter 'l3/W', which the model does not have"),
    "no optimizer class": (lambda p: _rewrite(p, drop=("optimizer/class",)), r"no 'class' entry"),
    "weights of another shape": (lambda p: _rewrite(p, model__l2__W=np.zeros((6, 4))),
                                 r"parameter 'l2/W' is (\(6, 4\) .* needs shape \(in_size, 3\)"
                                 r"|\(6, 3\) float64 in the model but \(6, 4\))"),
    "missing weights": (lambda p: _rewrite(p, drop=("model/bn/avg_var",)),
                        r"missing from the file: 'bn/avg_var'"),
    "stray key": (lambda p: _rewrite(p, notes=np.zeros(1)),
                  r"keys outside 'model/' and 'optimizer/': 'notes'"),
}


@pytest.mark.parametrize("fresh", [True, False], ids=["fresh model", "trained model"])
@pytest.mark.parametrize("make_file, match", BAD.values(), ids=BAD.keys())
def test_a_bad_checkpoint_raises_and_changes_neither_model_nor_optimizer(tmp_path, make_file, match, fresh):
    path = make_file(_saved(tmp_path))
    if fresh:
        model, opt = _setup(OPTIMIZERS["Adam"], 3, HOOKS["no hooks"])
    else:
        model, opt = _trained_pair()
    before = _snapshot(model, opt)
    with pytest.raises(ValueError, match=match):
        L.load_checkpoint(path, model, opt)
    _assert_unchanged(model, opt, before)
    if fresh:
        assert model.l1.W is None and model.bn.avg_mean is None


@pytest.mark.parametrize("make_opt, match", [
    (lambda: O.AdamW(lr=0.01), r"saved from Adam, but this optimizer is AdamW; load it into Adam"),
    (lambda: O.SGD(lr=0.01), r"the state was saved from Adam, but this optimizer is SGD"),
    (lambda: O.Adam(lr=0.001), r"Adam has lr=0.001 but the file was saved with lr=0.01; build the optimizer"),
    (lambda: O.Adam(lr=0.01, beta2=0.99), r"Adam has beta2=0.99 but the file was saved with beta2=0.999"),
], ids=["AdamW for Adam", "SGD for Adam", "another lr", "another beta2"])
def test_another_optimizer_or_other_hyperparameters_are_refused(tmp_path, make_opt, match):
    path = _saved(tmp_path)
    L.seed(3)
    model = Net()
    opt = make_opt().setup(model)
    with pytest.raises(ValueError, match=match):
        L.load_checkpoint(path, model, opt)
    assert model.l1.W is None and not opt.state


def test_weights_files_and_checkpoints_are_told_apart(tmp_path):
    model, opt = _trained_pair()
    model.save_weights(tmp_path / "w.npz")
    with pytest.raises(ValueError, match="holds no optimizer state, so it is not a checkpoint .*load_w"):
        L.load_checkpoint(tmp_path / "w.npz", model, opt)
    path = _saved(tmp_path)
    with pytest.raises(ValueError, match="is a checkpoint written by save_checkpoint: read it with load_ch"):
        model.load_weights(path)


def test_the_optimizer_must_be_set_up_on_the_model(tmp_path):
    model, opt = _trained_pair()
    with pytest.raises(ValueError, match=r"save_checkpoint: the Adam is set up on another model; call "
                                         r"optimizer.setup\(model\)"):
        L.save_checkpoint(tmp_path / "c.npz", Net(), opt)
    with pytest.raises(ValueError, match=r"load_checkpoint: the SGD is not set up"):
        L.load_checkpoint(_saved(tmp_path), model, O.SGD())
    with pytest.raises(TypeError, match="load_checkpoint: optimizer must be an Optimizer"):
        L.load_checkpoint(tmp_path / "c.npz", model, "adam")
    with pytest.raises(TypeError, match="save_checkpoint: model must be a Layer"):
        L.save_checkpoint(tmp_path / "c.npz", None, opt)
    assert sorted(os.listdir(tmp_path)) == ["ckpt.npz"]


def test_state_that_is_not_declared_cannot_be_saved(tmp_path):
    class Sign(O.Optimizer):
        def update_one(self, param, grad):
            self.state_of(param)["last"] = np.sign(grad)
            param.data -= 0.01 * np.sign(grad)

    model, _ = _trained_pair()
    opt = Sign().setup(model)
    _train(model, opt, _batches()[:1])
    with pytest.raises(TypeError, match=r"Sign.state_dict: state 'last' of parameter 'l1/W' is not "
                                        r"declared in Sign.state_kinds"):
        L.save_checkpoint(tmp_path / "c.npz", model, opt)
    Sign.state_kinds = {"last": "array"}
    L.save_checkpoint(tmp_path / "c.npz", model, opt)
    L.load_checkpoint(tmp_path / "c.npz", model, Sign().setup(model))


def test_an_interrupted_checkpoint_keeps_the_old_file(tmp_path, monkeypatch):
    path = _saved(tmp_path)
    before = path.read_bytes()
    write_array = np.lib.format.write_array
    calls = []

    def dies_on_the_fifth_array(handle, array, **kwargs):
        calls.append(1)
        if len(calls) == 5:
            raise KeyboardInterrupt("simulated interruption")
        return write_array(handle, array, **kwargs)

    monkeypatch.setattr(np.lib.format, "write_array", dies_on_the_fifth_array)
    model, opt = _trained_pair()
    with pytest.raises(KeyboardInterrupt):
        L.save_checkpoint(path, model, opt)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.npz"]


def test_checkpoints_follow_the_npz_suffix_rule_and_name_a_missing_directory(tmp_path):
    model, opt = _trained_pair()
    L.save_checkpoint(tmp_path / "run", model, opt)          # writes run.npz, as np.savez would
    assert os.listdir(tmp_path) == ["run.npz"]
    fresh = Net()
    opt2 = O.Adam(lr=0.01).setup(fresh)
    L.load_checkpoint(str(tmp_path / "run"), fresh, opt2)    # reads run.npz
    np.testing.assert_array_equal(fresh.l1.W.data, model.l1.W.data)
    with pytest.raises(FileNotFoundError, match=r"save_checkpoint: cannot write .*: the directory .*'"
                                                r" does not exist; create it first: os\.makedirs\("):
        L.save_checkpoint(tmp_path / "missing" / "run", model, opt)
    with pytest.raises(FileNotFoundError, match=r"load_checkpoint: no such file: .*other\.npz'"):
        L.load_checkpoint(tmp_path / "other", fresh, opt2)
    assert os.listdir(tmp_path) == ["run.npz"]


def test_the_path_comes_first_in_checkpoint_calls(tmp_path):
    model, opt = _trained_pair()
    with pytest.raises(TypeError, match=r"save_checkpoint: path must be a str or os\.PathLike, got Net \(the "
                                        r"path comes first: save_checkpoint\(path, model, optimizer\)\)"):
        L.save_checkpoint(model, opt, tmp_path / "c.npz")              # torch.save(obj, path) habit
    assert os.listdir(tmp_path) == []
