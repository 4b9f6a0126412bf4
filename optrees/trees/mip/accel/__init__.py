"""Acceleration techniques for the leaf-penalty BendOCT model ([BendOCT] §5)."""
