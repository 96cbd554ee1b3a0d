"""Suite generation (seed 002 step 1): a prompt suite drafted from the vault and a use case."""
