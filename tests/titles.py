"""The titles built in with their static data, as every listing (CLI, gRPC, HTTP) must name them: one
list for the tests that check those listings."""

from __future__ import annotations

GAMES = {"1830", "1880", "1880 Romania", "1894", "18EU"}
BEYOND_GAMES = {"1889", "18Chesapeake", "1846", "18AL"}  # built in, their rules declared as data
CATALOG_GAMES = {
    "1846 2p Variant",
    "1852: Missouri",
    "1856",
    "1882",
    "18Chesapeake: Off the Rails",
    "18Tokaido",
    *("1817", "1817NA", "1817WO", "18DE", "18 Hiawatha", "1861", "1866", "1867", "18ESP", "18FL", "1822Africa"),
    *("1822", "1822MRS", "1822NRS", "1822MX", "1822PNW", "1822PNW Short Scenario", "1822PNW SRS"),
    *("1822CA", "1822CA ERS", "1822CA WRS", "1888", "18USA"),
    *("1849", "1849: Kingdom of the Two Sicilies", "1858Switzerland", "18Ireland", "18NY", "18NY 1st Edition"),
    "1844",
    *("18Carolinas", "18Norway", "1858", "1858India", "1860", "1862", "1825", "1840"),
    *("18ZOO - Map A", "18ZOO - Map B", "18ZOO - Map C", "18ZOO - Map D", "18ZOO - Map E", "18ZOO - Map F"),
    *("Steam Over Holland", "18Rhl", "1837", "1824", "1824 Cisleithania", "18Mag"),
    *("18CO", "18JP-T", "1850", "1841", "18Ardennes", "18VA", "1848", "18MT: Big Sky Barons", "1847 AE"),
    *("1836Jr30", "1836Jr56", "1850Jr", "1870"),
    *("18SJ", "18CZ", "18Neb"),
    "18GB",
    "1877: Stockholm Tramways",
    "18TN",
    "Harzbahn 1873",
    "18 India",
    *("18 Los Angeles", "18 Los Angeles 2"),
    "18Uruguay",
    *("18NewEngland", "18NewEngland 2: Northern States"),
    "1868 Wyoming",
}  # the catalogue's titles with rules as data
BUILT_IN_TITLES = GAMES | BEYOND_GAMES | CATALOG_GAMES
