"""An encoder-decoder transformer learns to write a sequence of digits backwards, one digit at a time.

Data: a source of T digits from 0..V-1; the target is the same digits reversed.  The
decoder writes the target left to right, each digit from the source and the digits it has
written so far: the sequence-to-sequence setting of translation.

Model (PyTorch's nn.TransformerEncoderLayer and nn.TransformerDecoderLayer, batch first):

    memory = L.TransformerEncoderLayer(source embedded)
    h      = L.TransformerDecoderLayer(target so far embedded, memory, tgt_is_causal=True)
    scores = h W

Each digit is embedded as e_d + p_i (learned digit and position embeddings); the target so
far starts with a start symbol V.  In the decoder layer, self-attention lets position i
read the target's positions 0..i only (`tgt_is_causal=True`: the causal mask, so training
on whole sequences never lets a position see the digit it must predict), and the attention
to the memory lets it read every source position.

Training is teacher forcing: the decoder reads the true target shifted right by one (start
symbol first) and is scored by softmax cross-entropy on every position at once.  Decoding
is greedy: the start symbol alone, then T times the most likely next digit appended.  The
script reports the fraction of digits and of whole sequences decoded right on new
sequences, and draws the decoder's attention to the source for one of them: output
position i needs source position T - 1 - i, and its weights lie mostly along that
anti-diagonal (the encoder has already mixed the positions some).
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


class Reverser(L.Model):
    """Embeddings, one encoder layer, one decoder layer and V scores per target position."""

    def __init__(self, vocab, length, embed_dim, heads, rng):
        super().__init__()
        self.digits = L.EmbedID(vocab + 1, embed_dim)          # (the last id is the start symbol)
        self.positions = L.Parameter(0.1 * rng.standard_normal((length + 1, embed_dim)), name="positions")
        self.encoder = L.TransformerEncoderLayer(embed_dim, heads, 4 * embed_dim, dropout=0.0)
        self.decoder = L.TransformerDecoderLayer(embed_dim, heads, 4 * embed_dim, dropout=0.0)
        self.out = L.Linear(vocab)

    def embed(self, ids):
        return self.digits(ids) + self.positions[:ids.shape[1]]

    def forward(self, source, target_so_far):
        """Digits (batch, T) and the target read so far (batch, t) -> scores (batch, t, V)."""
        memory = self.encoder(self.embed(source))
        return self.out(self.decoder(self.embed(target_so_far), memory, tgt_is_causal=True))


def batch(rng, size, length, vocab):
    """(source, target), both (size, length) integers: the target is the source reversed."""
    source = rng.integers(0, vocab, (size, length))
    return source, source[:, ::-1].copy()


def shifted(target, start):
    """The decoder's input under teacher forcing: the start symbol, then the target but its last."""
    return np.concatenate([np.full((len(target), 1), start), target[:, :-1]], axis=1)


def decode(model, source, vocab):
    """Greedy decoding, one digit at a time, in test mode."""
    written = np.full((len(source), 1), vocab)
    with V.test_mode(), V.no_grad():
        for _ in range(source.shape[1]):
            scores = model(source, written).data[:, -1]
            written = np.concatenate([written, np.argmax(scores, axis=-1)[:, None]], axis=1)
    return written[:, 1:]


def main(argv=None):
    """Train the reverser, decode new sequences and draw the decoder's attention to the source."""
    parser = example_parser(__doc__, __file__, "the figure")
    parser.add_argument("--steps", type=int, default=400, help="Adam steps")
    parser.add_argument("--length", type=int, default=6, help="digits per sequence (T)")
    parser.add_argument("--vocab", type=int, default=8, help="digits 0..vocab-1 (V)")
    parser.add_argument("--embed", type=int, default=32, help="embedding size")
    parser.add_argument("--heads", type=int, default=4, help="attention heads (must divide --embed)")
    parser.add_argument("--batch", type=int, default=64, help="sequences per step")
    parser.add_argument("--lr", type=float, default=3e-3, help="Adam learning rate")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and the initial weights")
    args = parser.parse_args(argv)
    if min(args.steps, args.length, args.vocab, args.embed, args.heads, args.batch) < 1:
        parser.error("--steps, --length, --vocab, --embed, --heads and --batch must be positive")
    if args.embed % args.heads:
        parser.error("--heads must divide --embed")
    os.makedirs(args.out, exist_ok=True)
    L.seed(args.seed)
    rng = np.random.default_rng(args.seed)

    model = Reverser(args.vocab, args.length, args.embed, args.heads, rng)
    optimizer = O.Adam(lr=args.lr).setup(model)
    print(f"reversing {args.length} digits of 0..{args.vocab - 1}: one encoder and one decoder layer of "
          f"{args.heads}-head attention on {args.embed} features, batches of {args.batch}")
    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        source, target = batch(rng, args.batch, args.length, args.vocab)
        scores = model(source, shifted(target, args.vocab))
        loss = F.softmax_cross_entropy(scores, target)             # every position of every sequence
        model.cleargrads()
        loss.backward()
        optimizer.update()
        if step % max(1, args.steps // 8) == 0 or step == args.steps:
            print(f"step {step:5d}/{args.steps}  loss {float(loss):.4f}  "
                  f"time {time.perf_counter() - start:.2f}s")

    source, target = batch(np.random.default_rng(args.seed + 1), 500, args.length, args.vocab)
    written = decode(model, source, args.vocab)
    right = written == target
    print(f"greedy decoding of 500 new sequences: {100 * right.mean():.1f}% of digits and "
          f"{100 * right.all(axis=1).mean():.1f}% of sequences right")
    print(f"example: {source[0].tolist()} -> {written[0].tolist()}")

    weights = cross_attention(model, source[:1], written[:1], args.vocab)
    plt = pyplot()
    if plt is None:
        return 0
    fig, ax = plt.subplots(figsize=(5, 4.5))
    image = ax.imshow(weights, cmap="viridis", vmin=0)
    ax.set_xticks(range(args.length), [str(d) for d in source[0]])
    ax.set_yticks(range(args.length), [str(d) for d in written[0]])
    ax.set_xlabel("source digit (memory position)")
    ax.set_ylabel("written digit (target position)")
    ax.set_title("decoder's attention to the source")
    fig.colorbar(image, ax=ax)
    save_figure(plt, fig, os.path.join(args.out, "seq2seq_reverse.png"))
    return 0


def cross_attention(model, source, written, vocab):
    """The decoder's attention weights to the source, (T, T), averaged over the heads: its
    multihead_attn called as the layer calls it (post-norm: after the self-attention block)."""
    decoder = model.decoder
    with V.test_mode(), V.no_grad():
        memory = model.encoder(model.embed(source))
        x = model.embed(shifted(written, vocab))
        own, _ = decoder.self_attn(x, is_causal=True, need_weights=False)
        _, weights = decoder.multihead_attn(decoder.norm1(x + own), memory)
    return weights.data[0]


if __name__ == "__main__":
    sys.exit(main())
