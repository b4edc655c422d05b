# SPDX-License-Identifier: MIT
"""Reading benchmark output: RESULT, STATUS and META lines (docs/bench-method.md).

    RESULT name=<benchmark> [<param>=<value> ...] value=<number> unit=<unit> method=<icount|wall|insncount|wallclock-tcg-multi>
    STATUS system=<sys> prog=<program or name group> status=<exit status>
    META <key>=<value>

Any other line is ignored, so a whole console log can be read.  A RESULT line
that breaks the format is an error (parse_result raises ValueError).
"""
import math
import re

UNITS = ("instructions", "us", "ops_per_s", "MB_per_s", "count", "cycles")   # cycles: host TSC (bench-smp)
# insncount: tools/insncount (bench-http); wallclock-tcg-multi: bench-smp's secondary,
# noisy figures under multi-threaded TCG
METHODS = ("icount", "wall", "insncount", "wallclock-tcg-multi")
_FIELD = re.compile(r"^([a-z_][a-z0-9_]*)=(\S+)$")
_NAME = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$")


class Result:
    """One figure: name, system, params (dict without system), value, unit, method."""

    def __init__(self, name, system, params, value, unit, method):
        self.name, self.system, self.params = name, system, params
        self.value, self.unit, self.method = value, unit, method

    def key(self):
        return (self.name, self.system, tuple(sorted(self.params.items())))


def _fields(words, line):
    out = []
    for w in words:
        m = _FIELD.match(w)
        if not m:
            raise ValueError(f"not key=value: {w!r} in {line!r}")
        out.append((m.group(1), m.group(2)))
    return out


def parse_result(line):
    """A Result from one RESULT line; ValueError when malformed."""
    words = line.split()
    if len(words) < 5 or words[0] != "RESULT":
        raise ValueError(f"too short for a RESULT line: {line!r}")
    fields = _fields(words[1:], line)
    keys = [k for k, _ in fields]
    if keys[0] != "name" or keys[-3:] != ["value", "unit", "method"]:
        raise ValueError(f"want name= first and value= unit= method= last: {line!r}")
    if len(set(keys)) != len(keys):
        raise ValueError(f"repeated key: {line!r}")
    d = dict(fields)
    if not _NAME.match(d["name"]):
        raise ValueError(f"bad benchmark name {d['name']!r}")
    try:
        value = float(d["value"])
    except ValueError:
        raise ValueError(f"value is not a number: {line!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"value is not finite: {line!r}")
    if d["unit"] not in UNITS or d["method"] not in METHODS:
        raise ValueError(f"unknown unit or method: {line!r}")
    params = {k: v for k, v in fields[1:-3] if k != "system"}
    return Result(d["name"], d.get("system", ""), params, value, d["unit"], d["method"])


class Results:
    """Everything read from any number of files or logs."""

    def __init__(self):
        self.results = {}     # Result.key() -> Result (a later file wins)
        self.status = {}      # (system, prog) -> exit status
        self.meta = []        # (source, key, value) in reading order
        self.errors = []      # malformed RESULT lines, with their source
        self.sources = []     # every file read, in order

    def read_text(self, text, source="-"):
        for raw in text.splitlines():
            line = raw.strip()
            if line.startswith("RESULT "):
                self._add_result(line, source)
            elif line.startswith("STATUS "):
                self._add_status(line, source)
            elif line.startswith("META "):
                for k, v in _meta_fields(line):
                    self.meta.append((source, k, v))
        return self

    def read_file(self, path):
        self.sources.append(path)
        with open(path, errors="replace") as f:
            return self.read_text(f.read(), path)

    def _add_result(self, line, source):
        try:
            r = parse_result(line)
        except ValueError as e:
            self.errors.append(f"{source}: {e}")
            return
        self.results[r.key()] = r

    def _add_status(self, line, source):
        d = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
        try:
            self.status[(d["system"], d["prog"])] = int(d["status"])
        except (KeyError, ValueError):
            self.errors.append(f"{source}: bad STATUS line {line!r}")

    def get(self, name, system, exact=False, **params):
        """The Result for name/system/params (values compared as strings), or None.
        For system "pecan" a native figure (no system=) stands in unless `exact`."""
        want = tuple(sorted((k, str(v)) for k, v in params.items()))
        r = self.results.get((name, system, want))
        if r is None and system == "pecan" and not exact:
            # Pecan's native benchmarks print no system= parameter
            r = self.results.get((name, "", want))
        return r

    def get_native(self, name, **params):
        """A figure of Pecan's native benchmarks (no system= parameter), or None."""
        want = tuple(sorted((k, str(v)) for k, v in params.items()))
        return self.results.get((name, "", want))

    def values(self, name, system):
        """Every Result of one benchmark on one system."""
        return [r for (n, s, _), r in self.results.items()
                if n == name and (s == system or (system == "pecan" and s == ""))]

    def failure(self, system, prog_or_group):
        """Nonzero exit status recorded for a program (or name group), else None."""
        st = self.status.get((system, prog_or_group))
        return st if st not in (None, 0) else None


def _meta_fields(line):
    rest = line[len("META "):].strip()
    for w in rest.split(" "):
        if "=" in w:
            k, v = w.split("=", 1)
            yield k, v
