#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Requirements traceability: the guarantees of docs/guarantees.md against the tests that prove them.

    scripts/check_traceability.py [--root DIR] [--list]

Every row of the table in docs/guarantees.md's section "The guarantees" starts with an id, G-1,
G-2, ... in table order, and every test that proves a guarantee names its id in a comment next
to it (`// G-7: a rejected publish leaves its argument untouched`, or `# G-7: ...` in CMake), so
that `grep -rn "G-7\\b" docs tests` finds the promise and its proof. README.md repeats each
guarantee as a one-line bullet of its section "Guarantees" (`- G-7: priority admission ...`).
This script fails (exit status 1, naming each problem) when

  - a table row has no id, an id appears twice, or the ids are not G-1 ... G-n in table order;
  - a guarantee is cited by no file under tests/;
  - a file under tests/, README.md, or a page under docs/ outside the table, names an id the
    table does not have;
  - README.md's section "Guarantees" has no bullet for a guarantee, or one bullet twice;
  - a file that the row's "Test that proves it" column names (in backticks) does not exist, or
    is a file under tests/ that does not cite the row's id; a test name in backticks right
    after such a file (`SuspendedProducerBlocksOnlyUntilItResumes`) must occur in that file.

A new guarantee takes the next number at the end of the table; ids are never renumbered.
--list prints every id with its guarantee and the files citing it. Exit status 2: the table
cannot be read. Needs Python 3 only (CTest test "traceability", label "traceability").
"""

import argparse
import re
import sys
from pathlib import Path

TABLE_FILE = "docs/guarantees.md"
SECTION_TITLE = "## The guarantees"
README_SECTION_TITLE = "## Guarantees"
# A README bullet citing a guarantee: "- G-7: what it promises".
README_BULLET = re.compile(r"^- G-([0-9]+): \S")
ID_COLUMN = "Id"
TEST_COLUMN = "Test that proves it"
# An id anywhere: "G-" and a number, not part of a longer word or number ("LOG-1", "G-12a").
ID_PATTERN = re.compile(r"(?<![A-Za-z0-9_-])G-([0-9]+)(?![A-Za-z0-9_])")
# Files under tests/ read for citations (the fuzz corpus and regression inputs are binary).
CITING_SUFFIXES = {".cpp", ".hpp", ".h", ".cmake", ".txt", ".py", ".sh", ".ld"}
SKIPPED_TEST_DIRS = {"corpus", "regressions"}
# A backticked token that names a file or folder: a path, or a name with a source extension.
PATH_TOKEN = re.compile(r"^[A-Za-z0-9_./*-]+(/|\.(cpp|hpp|h|cmake|sh|py|txt))$|^[A-Za-z0-9_.*-]*/")
# A backticked test or suite name: CamelCase, no spaces or punctuation.
TEST_NAME_TOKEN = re.compile(r"^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$")


class Report:
    def __init__(self):
        self.problems = []

    def fail(self, message):
        self.problems.append(message)


def split_row(line):
    """The cells of a Markdown table row; `\\|` is a literal bar inside a cell."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", body)]


def section_start(lines, title, name):
    """The index of the line after the heading `title`."""
    for number, line in enumerate(lines):
        if line.rstrip() == title:
            return number + 1
    raise ValueError(f"{name} has no section '{title}'")


def read_table(table_lines):
    """(header cells, [(line number, cells)]) of the first table in the guarantees section."""
    start = section_start(table_lines, SECTION_TITLE, TABLE_FILE)
    table = []
    for number in range(start, len(table_lines)):
        line = table_lines[number]
        if line.startswith("## "):
            break
        if line.lstrip().startswith("|"):
            table.append((number + 1, line))
        elif table:
            break
    if len(table) < 3:
        raise ValueError(f"the section '{SECTION_TITLE}' has no table with rows")
    header = split_row(table[0][1])
    if not re.fullmatch(r"[\s|:-]+", table[1][1]):
        raise ValueError(f"{TABLE_FILE}:{table[1][0]}: the table's second line is not a separator")
    rows = [(number, split_row(line)) for number, line in table[2:]]
    return header, rows, {number for number, _ in table}


def citing_files(root):
    """{path relative to root: {id number: [line numbers]}} for every text file under tests/."""
    citations = {}
    tests = root / "tests"
    for path in sorted(tests.rglob("*")):
        if not path.is_file() or SKIPPED_TEST_DIRS.intersection(path.relative_to(tests).parts):
            continue
        if path.suffix not in CITING_SUFFIXES and path.name != "CMakeLists.txt":
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found = {}
        for number, line in enumerate(text.splitlines(), start=1):
            for match in ID_PATTERN.finditer(line):
                found.setdefault(int(match.group(1)), []).append(number)
        if found:
            citations[path.relative_to(root).as_posix()] = found
    return citations


def resolve(root, token):
    """The files or folders a backticked token names: a path from the repository root, a glob,
    or a bare file name looked up under tests/."""
    if "*" in token:
        return sorted(root.glob(token)) if "/" in token else sorted((root / "tests").rglob(token))
    candidate = root / token
    if "/" in token and (candidate.exists() or token.split("/")[0] in {
            "tests", "bench", "scripts", "docs", "include", "examples", "cmake"}):
        return [candidate] if candidate.exists() else []
    name = token.rstrip("/")
    return sorted(p for p in (root / "tests").rglob(name)
                  if p.is_file() != token.endswith("/")
                  and not SKIPPED_TEST_DIRS.intersection(p.parts))


def check_named_tests(root, guarantee, cell, line, citations, report):
    """The files and test names the row's test column names exist, and cite the row's id."""
    current_files = []
    for token in re.findall(r"`([^`]+)`", cell):
        if PATH_TOKEN.match(token):
            current_files = []
            paths = resolve(root, token)
            if not paths:
                report.fail(f"{TABLE_FILE}:{line}: G-{guarantee} names `{token}`, which does not "
                            f"exist")
                continue
            for path in paths:
                if not path.is_file():
                    continue
                current_files.append(path)
                relative = path.relative_to(root).as_posix()
                if relative.startswith("tests/") and guarantee not in citations.get(relative, {}):
                    report.fail(f"{TABLE_FILE}:{line}: G-{guarantee} names `{token}`, but {relative} "
                                f"does not cite G-{guarantee} (add `// G-{guarantee}: <what it "
                                f"proves>` next to the test)")
        elif TEST_NAME_TOKEN.match(token) and current_files:
            if not any(token in path.read_text(encoding="utf-8", errors="replace")
                       for path in current_files):
                names = ", ".join(p.relative_to(root).as_posix() for p in current_files)
                report.fail(f"{TABLE_FILE}:{line}: G-{guarantee} names the test `{token}`, "
                            f"which {names} does not contain")


def readme_bullets(readme_lines, report):
    """{id number: README line} of the bullets in README.md's section "Guarantees"."""
    try:
        start = section_start(readme_lines, README_SECTION_TITLE, "README.md")
    except ValueError as error:
        report.fail(str(error))
        return {}
    bullets = {}
    for number in range(start, len(readme_lines)):
        line = readme_lines[number]
        if line.startswith("## "):
            break
        match = README_BULLET.match(line)
        if not match:
            continue
        guarantee = int(match.group(1))
        if guarantee in bullets:
            report.fail(f"README.md:{number + 1}: G-{guarantee} has a second bullet (also "
                        f"README.md:{bullets[guarantee]})")
            continue
        bullets[guarantee] = number + 1
    return bullets


def mentions(lines, skipped):
    """(id number, line number) of every id mentioned in `lines` outside the line numbers
    `skipped`."""
    return [(int(m.group(1)), n) for n, text in enumerate(lines, start=1) if n not in skipped
            for m in ID_PATTERN.finditer(text)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the repository (default: this script's parent folder)")
    parser.add_argument("--list", action="store_true",
                        help="print every id, its guarantee and the files citing it")
    args = parser.parse_args()
    root = args.root.resolve()

    try:
        guarantee_lines = (root / TABLE_FILE).read_text(encoding="utf-8").splitlines()
        readme_lines = (root / "README.md").read_text(encoding="utf-8").splitlines()
        header, rows, table_lines = read_table(guarantee_lines)
        if not header or header[0] != ID_COLUMN:
            raise ValueError(f"the guarantees table's first column must be '{ID_COLUMN}'")
        if TEST_COLUMN not in header:
            raise ValueError(f"the guarantees table has no column '{TEST_COLUMN}'")
    except (OSError, ValueError) as error:
        print(f"traceability: cannot read the guarantees: {error}", file=sys.stderr)
        return 2
    test_column = header.index(TEST_COLUMN)

    report = Report()
    guarantees = {}  # id number -> (table line, guarantee text)
    for position, (line, cells) in enumerate(rows, start=1):
        match = re.fullmatch(r"G-([0-9]+)", cells[0]) if cells else None
        if not match:
            first = cells[0] if cells else ""
            first = first if len(first) <= 40 else first[:37] + "..."
            report.fail(f"{TABLE_FILE}:{line}: row {position} of the guarantees table has no "
                        f"id (first cell '{first}'; expected G-{position})")
            continue
        number = int(match.group(1))
        if number in guarantees:
            report.fail(f"{TABLE_FILE}:{line}: G-{number} is used twice (also {TABLE_FILE}:"
                        f"{guarantees[number][0]})")
            continue
        if number != position:
            report.fail(f"{TABLE_FILE}:{line}: row {position} has id G-{number}; the ids must "
                        f"be G-1, G-2, ... in table order (expected G-{position})")
        guarantees[number] = (line, cells[1] if len(cells) > 1 else "")

    citations = citing_files(root)
    for path, found in sorted(citations.items()):
        for number, lines in sorted(found.items()):
            if number not in guarantees:
                report.fail(f"{path}:{lines[0]}: cites G-{number}, which the guarantees table "
                            f"of {TABLE_FILE} does not have")
    # The README and the pages under docs/ may cite ids anywhere; each must exist.
    documents = [("README.md", readme_lines, set()), (TABLE_FILE, guarantee_lines, table_lines)]
    for page in sorted((root / "docs").glob("*.md")):
        relative = page.relative_to(root).as_posix()
        if relative != TABLE_FILE:
            documents.append((relative, page.read_text(encoding="utf-8").splitlines(), set()))
    for name, lines, skipped in documents:
        for number, line in mentions(lines, skipped):
            if number not in guarantees:
                report.fail(f"{name}:{line}: mentions G-{number}, which the guarantees table "
                            f"does not have")

    bullets = readme_bullets(readme_lines, report)
    for number, (line, _) in sorted(guarantees.items()):
        if number not in bullets:
            report.fail(f"README.md: the section '{README_SECTION_TITLE}' has no bullet "
                        f"'- G-{number}: ...' for the guarantee of {TABLE_FILE}:{line}")

    cited_by = {number: [path for path, found in citations.items() if number in found]
                for number in guarantees}
    for number, (line, _) in sorted(guarantees.items()):
        if not cited_by[number]:
            report.fail(f"{TABLE_FILE}:{line}: G-{number} has no test citing it (add "
                        f"`// G-{number}: <what it proves>` next to the test that proves it)")
    for position, (line, cells) in enumerate(rows, start=1):
        match = re.fullmatch(r"G-([0-9]+)", cells[0]) if cells else None
        if match and len(cells) > test_column:
            check_named_tests(root, int(match.group(1)), cells[test_column], line, citations,
                              report)

    if args.list:
        for number, (_, text) in sorted(guarantees.items()):
            summary = re.sub(r"\s+", " ", text.replace("`", ""))
            summary = summary if len(summary) <= 90 else summary[:87] + "..."
            print(f"G-{number}: {summary}")
            print(f"    {', '.join(sorted(cited_by[number])) or '(no test)'}")

    if report.problems:
        for problem in report.problems:
            print(f"traceability: {problem}", file=sys.stderr)
        print(f"traceability: FAILED: {len(report.problems)} problem(s) in "
              f"{len(guarantees)} guarantees", file=sys.stderr)
        return 1
    files = len(citations)
    total = sum(len(found) for found in citations.values())
    print(f"traceability: OK: {len(guarantees)} guarantees (G-1 to G-{len(guarantees)}), each "
          f"cited by at least one test and by a README bullet; {total} citations in {files} "
          f"files under tests/, none of an unknown id; every file the table names exists and "
          f"cites its row")
    return 0


if __name__ == "__main__":
    sys.exit(main())
