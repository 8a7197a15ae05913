"""perceive"""
