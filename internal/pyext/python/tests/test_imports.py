"""What real trees import, and what brine does not ship."""

import os
import subprocess
import sys
import unittest

PKG_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class ProvidedModulesTests(unittest.TestCase):
    def test_provided_modules_import(self):
        import importlib

        for name in (
            "salt", "salt.version", "salt.exceptions", "salt.defaults", "salt.defaults.exitcodes",
            "salt.utils", "salt.utils.args", "salt.utils.data", "salt.utils.dictupdate",
            "salt.utils.files", "salt.utils.hashutils", "salt.utils.json", "salt.utils.network",
            "salt.utils.odict", "salt.utils.path", "salt.utils.platform", "salt.utils.stringutils",
            "salt.utils.validate", "salt.utils.validate.net", "salt.utils.versions", "salt.utils.yaml",
            "salt.modules", "salt.modules.file", "salt.modules.cmdmod",
        ):
            with self.subTest(name=name):
                importlib.import_module(name)

    def test_brine_marker_and_encoding(self):
        import builtins

        import salt

        self.assertTrue(salt.__brine__)
        self.assertTrue(builtins.__salt_system_encoding__)


class NotShippedTests(unittest.TestCase):
    def test_missing_modules_fail_clearly(self):
        for stmt in ("import salt.loader", "import salt.ext.six", "from salt.ext import six",
                     "import salt.utils.http", "import salt.modules.pkg", "import salt.client", "from salt.states import file",
                     "from salt.utils.decorators import depends", "import salt.config"):
            with self.subTest(stmt=stmt):
                with self.assertRaises(ImportError) as ctx:
                    exec(stmt, {})
                msg = str(ctx.exception)
                self.assertIn("brine", msg)
                self.assertIn("does not ship", msg)
                self.assertIsInstance(ctx.exception, ModuleNotFoundError)

    def test_pre_2018_helpers_are_gone_as_in_3006(self):
        import salt.utils

        for name in ("fopen", "which", "which_bin", "is_windows"):
            self.assertFalse(hasattr(salt.utils, name), name)

    def test_missing_name_in_provided_module_is_plain_importerror(self):
        # extipv4-style fallback: calculate_subnet is not in Salt 3006 either
        with self.assertRaises(ImportError) as ctx:
            exec("from salt.utils.network import calculate_subnet", {})
        self.assertNotIn("does not ship", str(ctx.exception))

    def test_worker_module_names_are_not_ours(self):
        with self.assertRaises(ModuleNotFoundError) as ctx:
            exec("import salt.loaded.ext.module.x", {})
        self.assertNotIn("does not ship", str(ctx.exception))


class RealTreeStyleTests(unittest.TestCase):
    """Code written the way the surveyed trees use the package (see
    README.md); each test uses only the calls that tree makes."""

    def test_heroes_salt_os_grains(self):
        # openSUSE/heroes-salt salt/_grains/os_grains.py
        ns = {}
        exec("from salt.modules import file\n"
             "def check():\n"
             "    return {'fc_host': file.directory_exists('/sys/class/fc_host')}\n", ns)
        self.assertIsInstance(ns["check"]()["fc_host"], bool)

    def test_openqa_default_interface(self):
        # os-autoinst/salt-states-openqa _grains/default_interface.py
        ns = {}
        exec("import salt.utils.network\n"
             "def addrs(cidr=None):\n"
             "    a = salt.utils.network.ip_addrs(interface=None, include_loopback=True)\n"
             "    return [i for i in a if salt.utils.network.in_subnet(cidr, [i])] if cidr else a\n", ns)
        self.assertIn("127.0.0.1", ns["addrs"]("127.0.0.0/8") or ["127.0.0.1"])
        self.assertIsInstance(ns["addrs"](), list)

    def test_salt_shared_extipv4(self):
        # wuxxin/salt-shared _modules/extipv4.py
        ns = {}
        exec("import salt.utils.network as nw\n"
             "import salt.utils.validate.net as nw_validate\n"
             "try:\n"
             "    from salt.utils.network import calculate_subnet as calc_net\n"
             "except ImportError:\n"
             "    from salt.utils.network import calc_net as calc_net\n", ns)
        nw, val, calc = ns["nw"], ns["nw_validate"], ns["calc_net"]
        self.assertTrue(val.ipv4_addr("192.168.1.7"))
        self.assertFalse(val.netmask("24"))
        self.assertEqual(nw.cidr_to_ipv4_netmask("24"), "255.255.255.0")
        self.assertTrue(val.netmask(nw.cidr_to_ipv4_netmask("24")))
        self.assertEqual(str(nw.get_net_size("255.255.255.0")), "24")
        self.assertEqual(nw.get_net_start("192.168.1.7", "255.255.255.0"), "192.168.1.0")
        self.assertEqual(calc("192.168.1.7", "255.255.255.0"), "192.168.1.0/24")

    def test_uyuni_product_state(self):
        # uyuni-project/uyuni susemanager-sls src/states/product.py
        from salt.exceptions import CommandExecutionError
        from salt.utils.versions import version_cmp

        self.assertLess(version_cmp("1.8.12", "1.8.13"), 0)
        self.assertGreaterEqual(version_cmp("1.14.60", "1.8.13"), 0)
        self.assertTrue(issubclass(CommandExecutionError, Exception))


    def test_uyuni_cpuinfo_grain(self):
        # uyuni-project/uyuni susemanager-sls src/grains/cpuinfo.py
        ns = {}
        exec("import salt.modules.cmdmod\n"
             "import salt.utils\n"
             "try:\n"
             "    from salt.utils.path import which_bin as _which_bin\n"
             "except ImportError:\n"
             "    from salt.utils import which_bin as _which_bin\n"
             "from salt.exceptions import CommandExecutionError\n"
             "__salt__ = {'cmd.run_all': salt.modules.cmdmod.run_all}\n"
             "def sh():\n"
             "    exe = _which_bin(['sh'])\n"
             "    return __salt__['cmd.run_all']('{0} -c \"echo 1\"'.format(exe), output_loglevel='quiet')\n", ns)
        ret = ns["sh"]()
        self.assertEqual((ret["retcode"], ret["stdout"]), (0, "1"))


class StdlibOnlyTests(unittest.TestCase):
    def test_works_without_third_party_packages(self):
        """The package must not need PyYAML, packaging, looseversion or
        distro: run it in a python where importing them fails."""
        code = (
            "import sys\n"
            "for name in ('yaml', 'packaging', 'looseversion', 'distro', 'msgpack', 'jinja2'):\n"
            "    sys.modules[name] = None\n"
            "import salt.utils.yaml, salt.utils.versions, salt.utils.platform, salt.utils.args\n"
            "import salt.utils.data, salt.utils.files, salt.utils.network, salt.utils.json\n"
            "import salt.utils.dictupdate, salt.utils.hashutils, salt.exceptions\n"
            "assert salt.utils.yaml.safe_load('a: [1, yes]') == {'a': [1, True]}\n"
            "assert salt.utils.versions.version_cmp('1.10', '1.9') == 1\n"
            "assert salt.utils.args.yamlify_arg('{a: 1}') == {'a': 1}\n"
            "print('ok')\n"
        )
        out = subprocess.run([sys.executable, "-I", "-B", "-c", "import sys; sys.path.insert(0, %r)\n" % PKG_ROOT + code],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
        self.assertEqual(out.stdout.decode().strip(), "ok", out.stdout.decode())


if __name__ == "__main__":
    unittest.main()
