"""Small derivation modules shared by the command-line, conventions and plugin tests (written
into temporary directories; indented, the tests dedent them)."""

TRUE_CLAIMS = '''
    """True claims of three kinds."""
    import sympy as sp
    from verify_claims import Identity, Inequality, Monotonic, Ref
    x, y = sp.symbols("x y")
    U = sp.Interval(0, 1)
    CLAIMS = [
        Identity(id="square-of-sum", title="Square of a sum", ref=Ref("2", eq="3"),
                 lhs=(x + y) ** 2, rhs=x ** 2 + 2 * x * y + y ** 2, domain={x: U, y: U}),
        Inequality(id="amgm-bound", title="AM-GM bound", ref=Ref("2.1", eq="5"),
                   lhs=x * (1 - x), op="<=", rhs=sp.Rational(1, 4), domain={x: U}),
        Monotonic(id="exp-increasing", title="exp is increasing", ref=Ref("Appendix A"),
                  expr=sp.exp(x), var=x, domain={x: U}),
    ]
'''

WRONG_CLAIM = '''
    import sympy as sp
    from verify_claims import Identity
    x, y = sp.symbols("x y")
    CLAIMS = [Identity(id="dropped-cross-term", title="Cross term dropped", ref="3",
                       lhs=(x + y) ** 2, rhs=x ** 2 + y ** 2, domain={x: sp.Interval(1, 2), y: sp.Interval(1, 2)})]
'''
