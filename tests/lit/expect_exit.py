"""Runs a command and succeeds only when it exits with the given code.

Usage: expect_exit.py CODE COMMAND [ARGS...]. The command's stdout and stderr
pass through, so the output can still be piped into FileCheck.
"""
import subprocess
import sys


def main():
    expected = int(sys.argv[1])
    code = subprocess.call(sys.argv[2:])
    if code != expected:
        print(f"expect_exit: {' '.join(sys.argv[2:])} exited with {code}, "
              f"expected {expected}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
