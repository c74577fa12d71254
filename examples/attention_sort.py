"""A small transformer encoder that learns to sort a sequence of digits.

Data: sequences of T digits drawn uniformly from 0..V-1; the target at position i is the
i-th smallest digit of the sequence (`np.sort`).  Every output position must find, among
all inputs, the one of the right rank: a task for attention, where each position reads
every other.

Model: each digit d at position i becomes e_d + p_i (a learned digit embedding,
`L.EmbedID`, plus a learned position embedding), then `--layers` pre-norm blocks

    h = x + MultiheadAttention(LayerNorm(x)),     x' = h + W2 gelu(W1 LayerNorm(h)),

and a linear read-out of V scores per position.  One head of the attention computes

    weights = softmax(q k^T / sqrt(d)),  q = x Wq,  k = x Wk,  v = x Wv,  output = weights v,

so position i's output is a mixture of the values of all positions, weighted by how well
its query matches their keys (`L.MultiheadAttention` runs `--heads` such heads side by
side on embed_dim / heads features each and projects their joined outputs).  Nothing in
the attention knows the order of the positions: the position embeddings p_i are how the
model tells "first" from "last".

Training: softmax cross-entropy of the read-out against the sorted digits, averaged over
positions, with Adam.  The script reports the accuracy per digit and per whole sequence on
new sequences, and draws the attention weights of the last block for one of them: a row
shows which input positions the output position reads, and how much.
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import function as F  # noqa: E402
import layers as L  # noqa: E402
import optimizers as O  # noqa: E402
import variable as V  # noqa: E402
from examples.cli import example_parser  # noqa: E402
from examples.plotting import pyplot, save_figure  # noqa: E402


class Block(L.Model):
    """Pre-norm transformer block: attention, then a two-layer MLP, each added to its input."""

    def __init__(self, embed_dim, heads):
        super().__init__()
        self.norm1, self.norm2 = L.LayerNorm(), L.LayerNorm()
        self.attention = L.MultiheadAttention(embed_dim, heads)
        self.l1, self.l2 = L.Linear(4 * embed_dim), L.Linear(embed_dim)

    def forward(self, x):
        """(batch, T, E) -> (batch, T, E); the attention weights are kept in self.weights."""
        h, self.weights = self.attention(self.norm1(x))
        h = x + h
        return h + self.l2(F.gelu(self.l1(self.norm2(h))))


class Sorter(L.Model):
    """Digit and position embeddings, `layers` blocks, and V scores per position."""

    def __init__(self, vocab, length, embed_dim, heads, layers, rng):
        super().__init__()
        self.digits = L.EmbedID(vocab, embed_dim)
        self.positions = L.Parameter(0.1 * rng.standard_normal((length, embed_dim)), name="positions")
        self.blocks = L.Sequential(*[Block(embed_dim, heads) for _ in range(layers)])
        self.out = L.Linear(vocab)

    def forward(self, x):
        """Integer digits (batch, T) -> scores (batch, T, V)."""
        return self.out(self.blocks(self.digits(x) + self.positions))


def batch(rng, size, length, vocab):
    """(digits, sorted digits), both (size, length) integers."""
    x = rng.integers(0, vocab, (size, length))
    return x, np.sort(x, axis=1)


def loss_of(model, x, t):
    """Softmax cross-entropy averaged over every position of every sequence."""
    scores = model(x)
    return F.softmax_cross_entropy(scores.reshape(-1, scores.shape[-1]), t.reshape(-1))


def accuracy(model, x, t):
    """(fraction of digits right, fraction of sequences right), in test mode."""
    with V.test_mode(), V.no_grad():
        right = np.argmax(model(x).data, axis=-1) == t
    return right.mean(), right.all(axis=1).mean()


def main(argv=None):
    """Train the sorter, report its accuracy on new sequences and draw its attention."""
    parser = example_parser(__doc__, __file__, "the figure")
    parser.add_argument("--steps", type=int, default=600, help="Adam steps")
    parser.add_argument("--length", type=int, default=6, help="digits per sequence (T)")
    parser.add_argument("--vocab", type=int, default=10, help="digits 0..vocab-1 (V)")
    parser.add_argument("--embed", type=int, default=32, help="embedding size (E)")
    parser.add_argument("--heads", type=int, default=2, help="attention heads (must divide --embed)")
    parser.add_argument("--layers", type=int, default=2, help="transformer blocks")
    parser.add_argument("--batch", type=int, default=64, help="sequences per step")
    parser.add_argument("--lr", type=float, default=3e-3, help="Adam learning rate")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and the initial weights")
    args = parser.parse_args(argv)
    if min(args.steps, args.length, args.vocab, args.embed, args.heads, args.layers, args.batch) < 1:
        parser.error("--steps, --length, --vocab, --embed, --heads, --layers and --batch must be positive")
    if args.embed % args.heads:
        parser.error("--heads must divide --embed")
    os.makedirs(args.out, exist_ok=True)
    L.seed(args.seed)
    rng = np.random.default_rng(args.seed)

    model = Sorter(args.vocab, args.length, args.embed, args.heads, args.layers, rng)
    optimizer = O.Adam(lr=args.lr).setup(model)
    blocks = f"{args.layers} block" + "s" * (args.layers > 1)
    print(f"sorting {args.length} digits of 0..{args.vocab - 1}: {blocks} of {args.heads}-head attention on "
          f"{args.embed} features, batches of {args.batch}")
    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        loss = loss_of(model, *batch(rng, args.batch, args.length, args.vocab))
        model.cleargrads()
        loss.backward()
        optimizer.update()
        if step % max(1, args.steps // 10) == 0 or step == args.steps:
            seconds = time.perf_counter() - start
            print(f"step {step:5d}/{args.steps}  loss {float(loss):.4f}  time {seconds:.2f}s")

    x, t = batch(np.random.default_rng(args.seed + 1), 1000, args.length, args.vocab)
    digits, sequences = accuracy(model, x, t)
    print(f"on 1000 new sequences: {100 * digits:.1f}% of digits and {100 * sequences:.1f}% of "
          f"sequences sorted right")

    example = x[:1]
    with V.test_mode(), V.no_grad():
        predicted = np.argmax(model(example).data, axis=-1)[0]
    weights = model.blocks[-1].weights.data[0]
    print(f"example: {example[0].tolist()} -> {predicted.tolist()} (sorted: {t[0].tolist()})")

    plt = pyplot()
    if plt is None:
        return 0
    fig, ax = plt.subplots(figsize=(5, 4.5))
    image = ax.imshow(weights, cmap="viridis", vmin=0)
    ax.set_xticks(range(args.length), [str(d) for d in example[0]])
    ax.set_yticks(range(args.length), [str(d) for d in predicted])
    ax.set_xlabel("input digit (key position)")
    ax.set_ylabel("output digit (query position)")
    ax.set_title("attention weights of the last block\n(averaged over its heads)")
    fig.colorbar(image, ax=ax)
    save_figure(plt, fig, os.path.join(args.out, "attention_sort.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
