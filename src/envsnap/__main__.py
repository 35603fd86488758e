"""`python -m envsnap`."""

from envsnap.cli import main

if __name__ == "__main__":
    main()
