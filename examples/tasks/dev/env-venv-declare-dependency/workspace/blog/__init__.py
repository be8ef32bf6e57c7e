"""The travel blog's page builder."""
