"""analysis/builtin"""
