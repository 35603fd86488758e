"""The routes a case's pair is built through: a collect_env report through envsnap's importer
(`imported`), a real capture of the field job (`capture`), and the same capture with its GPU
sections written by the collectors against an NVML stand-in (`nvml`, in `capture`)."""
