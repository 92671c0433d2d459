"""schedulers"""
