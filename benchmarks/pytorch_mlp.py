#!/usr/bin/env python3
"""The baseline for bench_train's CPU mlp figure: the same model (784-128-10, relu, softmax +
cross-entropy), optimizer (Adam 1e-3), batch size and synthetic-sized data in PyTorch on the CPU.
Prints one line: samples/s over timed training steps after a warm-up.

    python3 benchmarks/pytorch_mlp.py [--batch 32] [--steps 2000] [--threads 0]
"""
import argparse
import time

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=0, help="0: PyTorch's default")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    images = torch.rand(10000, 28, 28)
    labels = torch.randint(0, 10, (10000,))
    model = torch.nn.Sequential(
        torch.nn.Flatten(), torch.nn.Linear(784, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = torch.nn.CrossEntropyLoss()  # softmax + categorical cross-entropy, fused

    def step(i):
        start = (i * args.batch) % (10000 - args.batch)
        x, y = images[start:start + args.batch], labels[start:start + args.batch]
        optimizer.zero_grad(set_to_none=True)
        logits = model(x)
        loss = loss_fn(logits, y)
        loss.backward()
        optimizer.step()
        # The same per-step metrics trainscope computes (running loss and accuracy).
        return loss.item(), (logits.argmax(1) == y).sum().item()

    for i in range(100):
        step(i)
    begin = time.perf_counter()
    for i in range(args.steps):
        step(i)
    seconds = time.perf_counter() - begin
    print(f"pytorch {torch.__version__} cpu threads={torch.get_num_threads()} "
          f"batch={args.batch}: {args.steps * args.batch / seconds:.0f} samples/s")


if __name__ == "__main__":
    main()
