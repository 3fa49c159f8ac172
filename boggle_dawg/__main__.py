"""`python -m boggle_dawg`: the `dawg-solve` program, the same entry point as the installed command."""

from .dawg_solve import main

if __name__ == "__main__":
    main()
