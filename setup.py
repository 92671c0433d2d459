"""The build step setup.cfg cannot say: the top-level platforms/ and kernels/ go into the wheel.

They are kept at the top of the repository, for people to edit; the wheel carries them as
jubex/_shipped/, where jubex.shipped finds them. An editable build copies nothing: the
package then reads them from the checkout.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SHIPPED = ("platforms", "kernels")
#: what of them is source (a kernel built in place leaves its binaries beside)
SOURCES = {".yaml", ".yml", ".xml", ".md", ".c", ".h", "Makefile"}


class BuildPy(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for name in SHIPPED:
            for source in sorted(Path(name).rglob("*")):
                if source.is_file() and (source.suffix or source.name) in SOURCES:
                    target = Path(self.build_lib, "jubex", "_shipped", source)
                    self.mkpath(str(target.parent))
                    self.copy_file(str(source), str(target))


setup(cmdclass={"build_py": BuildPy})
