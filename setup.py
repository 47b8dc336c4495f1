"""Builds the compiled search core; everything else is declared in pyproject.toml."""

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension(
        f"optimizer.core.{name}",
        [f"optimizer/core/{name}.pyx"],
        include_dirs=[numpy.get_include()],
        extra_compile_args=["-O3"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in ("_input", "_pricing", "_bounds", "_search", "_packing")
]

setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"}))
