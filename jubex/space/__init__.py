"""The expand stage: a definition's parameter spaces as streams, and the plan of workpackages."""
