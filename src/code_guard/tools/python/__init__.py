"""Our own Python analysers: one shared AST parse, checked by performance, taint,
settings and correctness checkers."""
