"""Builds the compiled search core, and ships the Ruby client inside the package (``route18xx review``
runs it); everything else is declared in pyproject.toml."""

import shutil
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_py import build_py

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


class BuildWithRubyClient(build_py):
    """Copies ``clients/ruby`` (its programs and library) to ``optimizer/review/ruby_client`` in the
    build, so that an installed wheel can review a game (``optimizer.review.replay.client_dir``)."""

    def run(self):
        super().run()
        source = Path(__file__).resolve().parent / "clients" / "ruby"
        target = Path(self.build_lib) / "optimizer" / "review" / "ruby_client"
        for part in ("bin", "lib"):
            if (source / part).is_dir():
                shutil.copytree(source / part, target / part, dirs_exist_ok=True)


setup(
    ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"}),
    cmdclass={"build_py": BuildWithRubyClient},
)
