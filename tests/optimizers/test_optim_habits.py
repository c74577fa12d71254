"""PyTorch's and DeZero's spellings for an optimizer: each refused with gengrad's spelling.

gengrad keeps DeZero's one spelling per action (`O.SGD(lr).setup(model)`, `opt.update()`,
`model.cleargrads()`), so a PyTorch or DeZero habit meets an error naming it, never a
second name for the same thing.
"""

import copy

import pytest

import optimizers as O


@pytest.mark.parametrize("cls", [O.SGD, O.MomentumSGD, O.AdaGrad, O.RMSprop, O.AdaDelta, O.Adam, O.AdamW])
@pytest.mark.parametrize("first", ["params()", "list", "model"])
def test_parameters_given_to_the_constructor_point_to_setup(cls, first, quadratic):
    given = {"params()": quadratic.params(), "list": list(quadratic.params()), "model": quadratic}[first]
    fix = rf"{cls.__name__}: the parameters go to setup\(\).*O\.{cls.__name__}\(lr=\.\.\.\)\.setup\(model\)"
    with pytest.raises(TypeError, match=fix):
        cls(given, lr=0.1)                   # was "got multiple values for argument 'lr'"
    with pytest.raises(TypeError, match=fix):
        cls(given)


@pytest.mark.parametrize("make, word, fix", [
    (lambda: O.Adam(alpha=0.01), "alpha", r"lr \(DeZero's alpha\): O\.Adam\(lr=0\.001\)"),
    (lambda: O.AdamW(alpha=0.01), "alpha", r"O\.AdamW\(lr=0\.001\)"),
    (lambda: O.Adam(betas=(0.9, 0.99)), "betas", r"beta1=0\.9, beta2=0\.999"),
    (lambda: O.SGD(lr=0.1, momentum=0.9), "momentum", r"O\.MomentumSGD\(lr, momentum=0\.9\)"),
])
def test_renamed_keywords_name_gengrads(make, word, fix):
    with pytest.raises(TypeError, match=rf"unexpected keyword argument '{word}'; .*{fix}"):
        make()


@pytest.mark.parametrize("name, fix", [
    ("step", r"opt\.update\(\)"),
    ("zero_grad", r"model\.cleargrads\(\)"),
])
def test_pytorch_method_names_name_gengrads(name, fix, quadratic):
    opt = O.SGD(0.1).setup(quadratic)
    message = rf"'SGD' object has no attribute '{name}'.*PyTorch's name.*{fix}"
    with pytest.raises(AttributeError, match=message):
        getattr(opt, name)
    assert not hasattr(opt, name)


def test_the_usual_calls_still_work_and_copy():
    assert O.Adam(0.01).lr == 0.01 and O.MomentumSGD(0.1, 0.5).momentum == 0.5
    assert O.AdamW(weight_decay=0.1).weight_decay == 0.1      # a real keyword of AdamW
    opt = copy.deepcopy(O.Adam(lr=0.02, beta1=0.8))
    assert (opt.lr, opt.beta1) == (0.02, 0.8)


def test_a_subclass_taking_other_arguments_first_is_not_refused():
    class Scheduled(O.SGD):
        def __init__(self, schedule, momentum=None):
            super().__init__(schedule[0])
            self.schedule, self.momentum = list(schedule), momentum

    opt = Scheduled([0.1, 0.01], momentum=0.5)
    assert opt.lr == 0.1 and opt.momentum == 0.5

