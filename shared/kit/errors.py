"""Input the product cannot use, with the field at fault and the values it accepts.

Domain code raises these (or subclasses); the API turns every one into a 422 whose
message names the field, and the CLI into exit code 2.
"""

from __future__ import annotations


class InputError(ValueError):
    def __init__(self, field: str, message: str, valid: list[str] | None = None) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.valid = valid
