"""The seeds' formulas, one module per family; pure functions on numbers and arrays."""
