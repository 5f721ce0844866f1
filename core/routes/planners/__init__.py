"""The five planners of indicative routes: grid, cdt, ecm, portal and network (one module each)."""
