/* A C extension module for the loader test: its init defines hello() as
 * a Python function in the module's namespace, so Salt's loader (which
 * exposes only Python functions) finds it. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static struct PyModuleDef cext = {PyModuleDef_HEAD_INIT, "cext", NULL, -1, NULL};

PyMODINIT_FUNC PyInit_cext(void) {
    PyObject *m = PyModule_Create(&cext);
    if (m == NULL)
        return NULL;
    PyObject *d = PyModule_GetDict(m);
    PyObject *r = PyRun_String("def hello(name):\n    return 'hello from C, ' + name + ' ' + __grains__['os']\n",
                               Py_file_input, d, d);
    if (r == NULL) {
        Py_DECREF(m);
        return NULL;
    }
    Py_DECREF(r);
    return m;
}
