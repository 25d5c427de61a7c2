#!/usr/bin/env python3
"""chainlint: the shell tests' assertions are judged whole (issue 32).

    tests/chainlint.py FILE...      (tests/analyse.sh: the "chainlint" analyser)

As git runs chainlint over every test body, this reads each shell test and
fails (exit 1, one line "FILE:LINE: what" per finding) on:

1. a check chained after an assertion: `jp_expect NAME CMD && CHECK`,
   `|| CHECK`, `| CHECK`, or `; CHECK` on the same line. jp_expect always
   returns 0, so CHECK runs outside it and its status is dropped (no test runs
   under set -e). A jp_expect that is itself a condition (`if jp_expect`,
   `! jp_expect`) is refused too. Put the whole check inside jp_expect.
2. a negative grep of a file the line does not first prove exists:
   `! grep PATTERN FILE` (also inside `sh -c '...'`, also `! grep ... | ...`,
   and `grep PATTERN FILE && jp_fail`) passes when FILE is missing. Each FILE
   must be proven earlier in the same &&-chain (`[ -s FILE ]`, `[ -f FILE ]`,
   `[ -e FILE ]`, `[ -d FILE ]`, `jp_path_is_file FILE`, `jp_path_is_dir
   FILE`, a grep that found something in FILE), or the check written `jp_no_text PATTERN FILE` (tests/lib/
   report.sh), which fails on a missing file. A poll (`while ! grep`, `until
   grep`, `jp_poll N sh -c '! grep ...'`), a file under /proc/, and an
   `if ! grep ...; then` whose branch is not jp_pass (`then jp_fail`
   asserts the text is there) are not checks of this kind.

It is a reader of shell, not a shell: quotes, $(...), ${...}, backquotes,
here-documents, comments, case patterns and line continuations are followed;
the code inside `sh -c '...'` and `bash -c "..."` and here-documents (often
a script of its own, run by unshare) are read again as shell, but a
here-document whose delimiter starts with BAD: a fixture, wrong on purpose.
"""
import re
import sys

RESERVED_LEAD = {"if", "then", "else", "elif", "do", "while", "until", "{", "!", "time"}
CLOSERS = {"fi", "done", "esac", "}", "then", "do", "else", "elif", ";;"}
OPS = ("&&", "||", ";;", ";", "|", "&", "(", ")")


class Tok:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind, self.text, self.line = kind, text, line

    def __repr__(self):
        return "%s(%r@%d)" % (self.kind, self.text, self.line)


def _skip_balanced(s, i, open_c, close_c):
    """s[i] is just after an opening open_c: the index after its close."""
    depth = 1
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = s.find("'", i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == '"':
            i = _skip_dquote(s, i + 1)
            continue
        if c == "`":
            i = _skip_backquote(s, i + 1)
            continue
        if c == "$" and i + 1 < n and s[i + 1] in "({":
            i = _skip_balanced(s, i + 2, s[i + 1], ")" if s[i + 1] == "(" else "}")
            continue
        if c == open_c:
            depth += 1
        elif c == close_c:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _skip_dquote(s, i):
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        if c == "`":
            i = _skip_backquote(s, i + 1)
            continue
        if c == "$" and i + 1 < n and s[i + 1] in "({":
            i = _skip_balanced(s, i + 2, s[i + 1], ")" if s[i + 1] == "(" else "}")
            continue
        i += 1
    return n


def _skip_backquote(s, i):
    n = len(s)
    while i < n:
        if s[i] == "\\":
            i += 2
            continue
        if s[i] == "`":
            return i + 1
        i += 1
    return n


def tokenize(s, line0=1, bodies=None):
    """Words (raw text, quotes kept), operators, NL; redirections dropped.
    The here-documents' bodies go to bodies, as (text, first line)."""
    if bodies is None:
        bodies = []
    toks = []
    i, n, line = 0, len(s), line0
    word, wline = None, line
    heredocs = []

    def end_word():
        nonlocal word
        if word is not None:
            toks.append(Tok("W", word, wline))
            word = None

    def add(text, at):
        nonlocal word, wline
        if word is None:
            word, wline = "", at
        word += text

    pending_redir = False
    while i < n:
        c = s[i]
        if c == "\\" and i + 1 < n and s[i + 1] == "\n":
            i += 2
            line += 1
            continue
        if c == "\\":
            add(s[i:i + 2], line)
            i += 2
            continue
        if c in " \t":
            end_word()
            i += 1
            continue
        if c == "\n":
            end_word()
            toks.append(Tok("NL", "\n", line))
            i += 1
            line += 1
            for delim in heredocs:
                body_start, body_line0 = i, line
                while i < n:
                    j = s.find("\n", i)
                    j = n if j < 0 else j
                    body_line = s[i:j]
                    if body_line.lstrip("\t") == delim:
                        # (a here-document whose delimiter starts with BAD
                        # is shell that is wrong on purpose: a fixture)
                        if not delim.startswith("BAD"):
                            bodies.append((s[body_start:i], body_line0))
                        i = j + 1
                        line += 1
                        break
                    i = j + 1
                    line += 1
            heredocs = []
            continue
        if c == "#" and word is None:
            j = s.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "'":
            j = s.find("'", i + 1)
            j = n if j < 0 else j + 1
            add(s[i:j], line)
            line += s.count("\n", i, j)
            i = j
            continue
        if c == '"':
            j = _skip_dquote(s, i + 1)
            add(s[i:j], line)
            line += s.count("\n", i, j)
            i = j
            continue
        if c == "`":
            j = _skip_backquote(s, i + 1)
            add(s[i:j], line)
            line += s.count("\n", i, j)
            i = j
            continue
        if c == "$" and i + 1 < n and s[i + 1] in "({":
            j = _skip_balanced(s, i + 2, s[i + 1], ")" if s[i + 1] == "(" else "}")
            add(s[i:j], line)
            line += s.count("\n", i, j)
            i = j
            continue
        if c in "<>":
            # a redirection: its operator (and a fd number before it) and
            # its target are not words of the command
            if word is not None and word.isdigit():
                word = None
            end_word()
            m = re.match(r"<<-?|<>|>>|>&|<&|>\||<|>", s[i:])
            op = m.group(0)
            i += len(op)
            while i < n and s[i] in " \t":
                i += 1
            if op in ("<<", "<<-"):
                m2 = re.match(r"""(['"]?)([^\s'";&|<>()]+)\1""", s[i:])
                if m2:
                    heredocs.append(m2.group(2))
                    i += len(m2.group(0))
                continue
            pending_redir = True
            # read the target as a word, then drop it
            before = len(toks)
            start_word = word
            j = i
            while j < n and s[j] not in " \t\n;&|()<>":
                if s[j] == "'":
                    k = s.find("'", j + 1)
                    j = n if k < 0 else k + 1
                elif s[j] == '"':
                    j = _skip_dquote(s, j + 1)
                elif s[j] == "$" and j + 1 < n and s[j + 1] in "({":
                    j = _skip_balanced(s, j + 2, s[j + 1], ")" if s[j + 1] == "(" else "}")
                elif s[j] == "\\":
                    j += 2
                else:
                    j += 1
            line += s.count("\n", i, j)
            i = j
            del toks[before:]
            word = start_word
            pending_redir = False
            continue
        m = None
        for op in OPS:
            if s.startswith(op, i):
                m = op
                break
        if m:
            end_word()
            toks.append(Tok("OP", m, line))
            i += len(m)
            continue
        add(c, line)
        i += 1
    end_word()
    del pending_redir
    return toks


def unquote(raw):
    """The text a raw shell word stands for, its $-expansions left as text."""
    out = []
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c == "'":
            j = raw.find("'", i + 1)
            j = n if j < 0 else j
            out.append(raw[i + 1:j])
            i = j + 1
        elif c == '"':
            j = _skip_dquote(raw, i + 1)
            body = raw[i + 1:j - 1]
            out.append(re.sub(r'\\([\\"$`\n])', r"\1", body))
            i = j
        elif c == "\\" and i + 1 < n:
            out.append(raw[i + 1])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Cmd:
    def __init__(self):
        self.words = []
        self.line = 0
        self.negated = False
        self.cond = None  # "if", "while", "until" when part of a condition
        self.end = None  # the operator after it
        self.end_line = 0


def commands(toks):
    """Simple commands in order, each with the operator that ends it."""
    cmds = []
    cur = Cmd()
    cond_stack = []  # open if/while/until conditions
    case_pattern = False
    in_for_head = False
    after_case = False

    def finish(op, line):
        nonlocal cur
        if cur.words:
            cur.end, cur.end_line = op, line
            cmds.append(cur)
        elif cmds and op in ("&&", "||", "|") and cmds[-1].end is None:
            pass
        cur = Cmd()

    for t in toks:
        if t.kind == "W":
            w = t.text
            if case_pattern:
                if w == "esac":
                    case_pattern = False
                continue
            if in_for_head:
                if w == "do":
                    in_for_head = False
                continue
            if after_case:
                if w == "in":
                    after_case = False
                    case_pattern = True
                continue
            if not cur.words:
                if w == "case":
                    after_case = True
                    continue
                if w == "for":
                    in_for_head = True
                    continue
                if w in ("if", "while", "until", "elif"):
                    cond_stack.append("if" if w == "elif" else w)
                    continue
                if w in ("then", "do"):
                    if cond_stack:
                        cond_stack.pop()
                    continue
                if w == "!":
                    cur.negated = True
                    continue
                if w in ("else", "{", "time"):
                    continue
                if w in ("fi", "done", "esac", "}"):
                    continue
                cur.line = t.line
                cur.cond = cond_stack[-1] if cond_stack else None
            cur.words.append(w)
        elif t.kind == "NL":
            if in_for_head:
                continue
            finish("NL", t.line)
        else:
            op = t.text
            if case_pattern:
                if op == ")":
                    case_pattern = False
                continue
            if op == ";;":
                finish(op, t.line)
                case_pattern = True
                continue
            if in_for_head and op == ";":
                continue
            if op == "(" and not cur.words:
                continue
            if op == ")" and not cur.words:
                continue
            finish(op, t.line)
    finish("NL", 0)
    # a command's first word after its assignments
    for c in cmds:
        c.name = next((w for w in c.words if not re.match(r"^[A-Za-z_][A-Za-z_0-9]*=", w)), "")
    return cmds


GREP_ARG_OPTS = {"-e", "-f", "-m", "-A", "-B", "-C", "--regexp", "--file", "--max-count",
                 "--include", "--exclude", "--exclude-dir", "--label", "--binary-files",
                 "--color", "--colour", "-d", "-D"}


def grep_files(words):
    """The file operands of a grep command (its words after the name)."""
    args = words[words.index(next(w for w in words if unquote(w) in ("grep", "egrep", "fgrep"))) + 1:]
    pattern_given = False
    files = []
    i = 0
    only_operands = False
    while i < len(args):
        a = unquote(args[i])
        if not only_operands and a == "--":
            only_operands = True
        elif not only_operands and a.startswith("-") and len(a) > 1:
            name = a.split("=", 1)[0]
            if name in GREP_ARG_OPTS and "=" not in a:
                if name in ("-e", "--regexp", "-f", "--file"):
                    pattern_given = True
                i += 1
            elif re.match(r"^-[a-zA-Z]*[ef]$", a):
                pattern_given = True
                i += 1
            elif re.match(r"^-[a-zA-Z]*[ef].", a) and not a.startswith("--"):
                pattern_given = True
        elif not pattern_given:
            pattern_given = True
        else:
            files.append(args[i])
        i += 1
    return files


def reader_files(name, words):
    """The operands of cat, ls or find (find's: its paths before the tests)."""
    args = words[words.index(next(w for w in words if unquote(w) == name)) + 1:]
    files = []
    for a in args:
        u = unquote(a)
        if name == "find" and (u.startswith("-") or u in ("(", "!", "\\(")):
            break
        if u.startswith("-") and u != "-":
            continue
        files.append(a)
    return files


def proven(chain, f):
    """Whether a command of the &&-chain before the grep proves f exists."""
    target = unquote(f)
    for c in chain:
        ws = [unquote(w) for w in c.words]
        if not ws:
            continue
        if ws[0] in ("[", "test") and not c.negated:
            for k in range(1, len(ws) - 1):
                if ws[k] in ("-s", "-f", "-e", "-d", "-r") and ws[k + 1] == target:
                    return True
        if ws[0] in ("jp_path_is_file", "jp_path_is_dir") and len(ws) > 1 and ws[1] == target:
            return True
        # a grep that found something in it (`grep -q A F && ! grep -q B F`)
        if (ws[0] in ("grep", "egrep", "fgrep") and not c.negated
                and any(unquote(g) == target for g in grep_files(c.words))):
            return True
    return False


def lint_text(text, path, line0, findings, depth=0, poll=False):
    bodies = []
    cmds = commands(tokenize(text, line0, bodies))
    # a here-document is often a script of its own (run by unshare, ssh)
    for body, first in bodies:
        if depth < 3:
            lint_text(body, path, first, findings, depth + 1)
    chain = []  # the &&-chain before the current command
    neg_pipe = None  # the negated pipeline being read: (its first command)
    for k, c in enumerate(cmds):
        nxt = cmds[k + 1] if k + 1 < len(cmds) else None
        name = unquote(c.name)
        prev = cmds[k - 1] if k > 0 else None
        in_pipe = prev is not None and prev.end == "|"
        if not in_pipe:
            neg_pipe = c if c.negated else None
        # 1. a check chained after an assertion
        if name == "jp_expect":
            if c.end in ("&&", "||", "|"):
                findings.append((path, c.line, "a check chained after jp_expect by `%s`: its status "
                                 "is dropped (jp_expect returns 0); put the whole check inside "
                                 "jp_expect" % c.end))
            elif (c.end in (";", "&") and nxt is not None and nxt.line == c.end_line
                  and not unquote(nxt.name).startswith("jp_")):
                findings.append((path, c.line, "a command after `jp_expect ...%s` on the same line: "
                                 "its status is dropped; put the whole check inside jp_expect" % c.end))
            if c.negated or c.cond:
                findings.append((path, c.line, "jp_expect as a condition: it always returns 0"))
        # 2. a negative grep of a file not proven to exist
        negative = False
        if name in ("grep", "egrep", "fgrep"):
            if neg_pipe is not None:
                negative = True
            elif (c.end == "&&" and nxt is not None and unquote(nxt.name) == "jp_fail"
                  and not c.negated):
                negative = True
        # `! cat FILE | grep`, `! ls DIR | grep`, `! find DIR ... | grep`: the
        # same, the file read first
        if (name in ("cat", "ls", "find") and neg_pipe is c and c.end == "|"):
            negative = True
        if negative and c.cond == "if":
            # `if ! grep ...; then jp_fail` asserts the text is there, and
            # `if ... ! grep ...; then kill` is no check: only a condition
            # that leads to jp_pass is a negative check
            then = next((d for d in cmds[k + 1:] if d.cond != "if"), None)
            negative = then is not None and unquote(then.name) == "jp_pass"
        if negative and c.cond not in ("while", "until") and not poll:
            files = grep_files(c.words) if name.endswith("grep") else reader_files(name, c.words)
            for f in files:
                if unquote(f).startswith("/proc/"):
                    continue
                if proven(chain, f):
                    continue
                findings.append((path, c.line, "a negative grep of %s, not proven to exist first: "
                                 "it passes when the file is missing (jp_no_text PATTERN FILE, or "
                                 "[ -s FILE ] && ! grep ...)" % f))
        # the code of sh -c '...' (also as jp_expect's, timeout's command),
        # read again
        ws = [unquote(w) for w in c.words]
        for i in range(len(ws) - 2):
            if ws[i] in ("sh", "bash", "dash") and ws[i + 1] == "-c" and depth < 3:
                # (jp_poll's command is a poll: waited for, not a check)
                lint_text(ws[i + 2], path, c.line, findings, depth + 1,
                          poll or name.startswith(("jp_poll", "jp_wait")))
                break
        # the chain so far: a command whose status gates the next by &&
        if c.end == "&&":
            chain.append(c)
        elif c.end != "|":
            chain = []


def main(argv):
    findings = []
    for path in argv[1:]:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lint_text(fh.read(), path, 1, findings)
    seen = set()
    for f in findings:
        if f in seen:
            continue
        seen.add(f)
        print("%s:%d: %s" % f)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
