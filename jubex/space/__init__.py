"""space"""
