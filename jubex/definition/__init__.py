"""definition"""
