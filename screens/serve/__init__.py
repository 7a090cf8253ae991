"""`tensorweg serve` in its own package: the command (`command`), the rules a tab is held to (`limits`),
what a tab may do (`policy`), the server holding to them (`server`) and its temp folder (`run_dir`)."""
