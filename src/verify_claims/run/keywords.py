"""`-k EXPRESSION`: choose claims by keyword, with pytest's grammar.

    expr     := and_expr ("or" and_expr)*
    and_expr := not_expr ("and" not_expr)*
    not_expr := "not" not_expr | "(" expr ")" | word

A word matches a claim when it is a case-insensitive substring of one of the claim's
keywords (its id, kind, module file and name, paper reference: see
``session.claim_keywords``), as a word of ``pytest -k`` matches a test's names.  The
expression is parsed here, never evaluated by Python: it comes from the command line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Keywords", "KeywordError"]

# a word is a run of characters other than blanks, parentheses and quotes; a phrase with
# blanks or parentheses (a reference such as Eq. (14)) is quoted: -k '"Eq. (14)"'
_TOKEN = re.compile(r"""\s*(?:(?P<lp>\()|(?P<rp>\))|"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<word>[^\s()"']+))""")


class KeywordError(ValueError):
    """A -k expression that does not parse; the message points at the column."""


@dataclass(frozen=True)
class _Word:
    text: str

    def __call__(self, names) -> bool:
        return any(self.text in n for n in names)


@dataclass(frozen=True)
class _Not:
    inner: object

    def __call__(self, names) -> bool:
        return not self.inner(names)


@dataclass(frozen=True)
class _And:
    left: object
    right: object

    def __call__(self, names) -> bool:
        return self.left(names) and self.right(names)


@dataclass(frozen=True)
class _Or:
    left: object
    right: object

    def __call__(self, names) -> bool:
        return self.left(names) or self.right(names)


class Keywords:
    """A compiled -k expression: ``Keywords("s3 and not limit").matches(names)``."""

    def __init__(self, text: str):
        self.text = text
        self._tokens = self._lex(text)
        self._pos = 0
        if not self._tokens:
            raise KeywordError("-k: empty expression (give a word, e.g. -k eq14)")
        self._tree = self._expr()
        if self._pos < len(self._tokens):
            kind, value, col = self._tokens[self._pos]
            raise KeywordError(f"-k {text!r}: unexpected {value!r} at column {col + 1}")

    def matches(self, names) -> bool:
        return self._tree(tuple(str(n).lower() for n in names))

    def __repr__(self) -> str:
        return f"Keywords({self.text!r})"

    # ------------------------------------------------------------ parsing
    @staticmethod
    def _lex(text):
        out, pos = [], 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                if text[pos:].strip() == "":
                    break
                raise KeywordError(f"-k {text!r}: unbalanced quote at column {pos + 1}")
            col = m.start(m.lastgroup) if m.lastgroup else pos
            if m.group("lp"):
                out.append(("(", "(", col))
            elif m.group("rp"):
                out.append((")", ")", col))
            elif m.group("dq") is not None or m.group("sq") is not None:
                out.append(("word", m.group("dq") if m.group("dq") is not None else m.group("sq"), col))
            else:
                w = m.group("word")
                out.append((w, w, col) if w in ("and", "or", "not") else ("word", w, col))
            pos = m.end()
        return out

    def _peek(self):
        return self._tokens[self._pos][0] if self._pos < len(self._tokens) else None

    def _take(self, kind):
        if self._peek() != kind:
            if self._pos < len(self._tokens):
                _, value, col = self._tokens[self._pos]
                raise KeywordError(f"-k {self.text!r}: expected {kind!r}, got {value!r} at column {col + 1}")
            raise KeywordError(f"-k {self.text!r}: expected {kind!r} at the end")
        tok = self._tokens[self._pos]
        self._pos += 1
        return tok

    def _expr(self):
        node = self._and()
        while self._peek() == "or":
            self._pos += 1
            node = _Or(node, self._and())
        return node

    def _and(self):
        node = self._not()
        while self._peek() == "and":
            self._pos += 1
            node = _And(node, self._not())
        return node

    def _not(self):
        kind = self._peek()
        if kind == "not":
            self._pos += 1
            return _Not(self._not())
        if kind == "(":
            self._pos += 1
            node = self._expr()
            self._take(")")
            return node
        if kind == "word":
            return _Word(self._take("word")[1].lower())
        if kind is None:
            raise KeywordError(f"-k {self.text!r}: expected a word at the end")
        _, value, col = self._tokens[self._pos]
        raise KeywordError(f"-k {self.text!r}: expected a word, got {value!r} at column {col + 1}")
