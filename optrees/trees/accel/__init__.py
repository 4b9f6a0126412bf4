"""Acceleration techniques for the leaf-penalty BendOCT model (accelerated-bendoct.txt §5)."""
