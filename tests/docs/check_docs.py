#!/usr/bin/env python3
"""Keeps the README and docs/ true to the binary.

1. Every `xlite ...` command line they show (in code blocks and inline code,
   after an optional `$ `, environment assignments or `mpirun ... `) names a
   subcommand the binary has and only flags its `--help` lists.
2. The README's tour (its ```console blocks) runs: each `$ xlite ...` command
   is executed from the repository root and must exit 0, and the output lines
   shown under it must appear in its output in that order, where `...` in a
   line stands for any text and a line `...` for any lines.

Usage: check_docs.py --xlite BUILD/xlite/tools/xlite --root REPO
"""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys

COMMAND = re.compile(r"^(?:\$ )?(?:[A-Z_]+=\S+ )*(?:mpirun (?:-\S+ (?:\d+ )?)*)?"
                     r"(?:build/xlite/tools/)?xlite(?= |$)(.*)$")


def code_lines(text):
    """(line number, text) of every line in fenced blocks and every inline code span."""
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            yield number, line.strip()
        else:
            for span in re.findall(r"`([^`]+)`", line):
                yield number, span.strip()


def flags_of(words):
    flags = []
    for word in words:
        word = word.strip("[](),;|")
        if re.match(r"^--?[A-Za-z]", word):
            flags.append(word.split("=", 1)[0])
    return flags


class Help:
    def __init__(self, xlite):
        self.xlite = xlite
        self.cache = {}

    def options(self, command):
        if command not in self.cache:
            args = [self.xlite] + ([command] if command else []) + ["--help"]
            out = subprocess.run(args, capture_output=True, text=True).stdout
            names = set()
            for line in out.split("\n"):
                if line.lstrip().startswith("-"):  # the option column, before its description
                    column = line.strip().split("  ")[0]
                    names.update(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", column))
            subcommands = set()
            if not command:
                in_list = False
                for line in out.split("\n"):
                    if line.startswith("Subcommands:"):
                        in_list = True
                    elif in_list and re.match(r"^  [a-z]", line):
                        subcommands.add(line.split()[0])
            self.cache[command] = (names, subcommands)
        return self.cache[command]


def check_commands(path, help_, errors):
    text = open(path, encoding="utf-8").read()
    checked = 0
    for number, line in code_lines(text):
        match = COMMAND.match(line)
        if not match:
            continue
        try:
            words = shlex.split(match.group(1).split(" #")[0], posix=True)
        except ValueError:
            words = match.group(1).split()
        if "<" in line:  # a placeholder such as `xlite <command> --help`
            continue
        where = f"{os.path.relpath(path)}:{number}"
        _, subcommands = help_.options("")
        command = next((w for w in words if not w.startswith("-")), "")
        if command and command not in subcommands:
            if words and words[0] == command:
                errors.append(f"{where}: `xlite {command}`: no such subcommand")
            continue
        known, _ = help_.options(command)
        for flag in flags_of(words):
            if flag not in known and flag not in ("-h", "--help"):
                errors.append(f"{where}: `xlite {command}` has no flag {flag}")
        checked += 1
    return checked


def line_pattern(shown):
    return re.compile("^" + ".*".join(re.escape(part) for part in shown.split("...")) + "$")


def run_tour(readme, xlite, root, errors):
    text = open(readme, encoding="utf-8").read()
    blocks = re.findall(r"```console\n(.*?)```", text, re.S)
    ran = 0
    for block in blocks:
        steps = []
        for line in block.rstrip("\n").split("\n"):
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line)
        for command, shown in steps:
            words = shlex.split(command)
            if words[0] != "xlite":
                errors.append(f"README tour: `{command}` is not an xlite command")
                continue
            done = subprocess.run([xlite] + words[1:], cwd=root, capture_output=True, text=True)
            ran += 1
            output = (done.stdout + done.stderr).split("\n")
            if done.returncode != 0:
                errors.append(f"README tour: `{command}` exited {done.returncode}: "
                              f"{done.stderr.strip()[:300]}")
                continue
            at = 0
            for expected in shown:
                if expected == "...":
                    continue
                pattern = line_pattern(expected)
                while at < len(output) and not pattern.match(output[at]):
                    at += 1
                if at == len(output):
                    errors.append(f"README tour: `{command}` printed no line `{expected}` "
                                  "(in order)")
                    break
                at += 1
    return ran


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--xlite", required=True)
    parser.add_argument("--root", required=True)
    args = parser.parse_args()
    help_ = Help(os.path.abspath(args.xlite))
    readme = os.path.join(args.root, "README.md")
    errors = []
    checked = 0
    for path in [readme] + sorted(glob.glob(os.path.join(args.root, "docs", "*.md"))):
        checked += check_commands(path, help_, errors)
    os.makedirs(os.path.join(args.root, "build"), exist_ok=True)
    ran = run_tour(readme, os.path.abspath(args.xlite), args.root, errors)
    for error in errors:
        print(error)
    print(f"checked {checked} command lines, ran {ran} tour commands: {len(errors)} problems")
    return 1 if errors or checked == 0 or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
