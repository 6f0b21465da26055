"""No module of the ratings app imports one that imports it back, directly or through others,
lazy imports (inside functions) and package ``__init__`` modules included.

import-linter's ``acyclic_siblings`` contract compares sibling packages; a circle through a
package's ``__init__`` (``runs.queue`` -> ``runs.tasks`` -> ``ratings.runs`` -> ``runs.queue``)
passed it, so this test follows every chain.
"""

import grimp


def test_no_module_of_ratings_imports_one_that_imports_it_back():
    graph = grimp.build_graph("ratings", "ladder", cache_dir=None)
    circles = [
        (module, imported, graph.find_shortest_chain(importer=imported, imported=module))
        for module in sorted(graph.find_descendants("ratings") | {"ratings"})
        for imported in sorted(graph.find_modules_directly_imported_by(module))
        if imported != module
        and imported.split(".")[0] in ("ratings", "ladder")
        and graph.chain_exists(importer=imported, imported=module)
    ]
    assert circles == []
