// Package pyops gives brine's dynamic values (package value) the behaviour
// of Python 3: arithmetic, comparisons, indexing and slicing, conversions,
// printf-style and str.format formatting, and the methods of str, bytes,
// dict, list, tuple, int and float that templates call.
//
// Every failure is an *Error carrying the Python exception type and the
// message CPython 3.11 prints, so a caller can show the last line of a
// Python traceback ("TypeError: unsupported operand type(s) ...").
//
// The expectations in testdata/cases.json were recorded from CPython by
// testdata/gen.py; the tests need no Python.
//
// Known differences from CPython:
//   - dict.keys, values and items return lists (of 2-tuples for items), not
//     views: the repr lacks the "dict_items(...)" wrapper.
//   - A format field wider or more precise than 1<<20 characters, and a
//     sequence repetition longer than 1<<28 items, fail with MemoryError.
//   - int ** int results above a million bits fail with MemoryError.
//   - A negative float raised to a fractional power (a complex number in
//     Python) is a ValueError.
//   - str.isdigit, isnumeric, casefold and the full case mappings of upper
//     and title use Go's Unicode tables plus the common special cases.
//   - Encodings: utf-8, ascii and latin-1 only.
//   - str.format attribute fields ("{0.name}") fall back to item lookup on
//     dicts, as in Jinja's sandbox where Salt's templates call it; pass an
//     AttrFunc to FormatString for other lookups.
//   - bytes % args formats like str % args.
package pyops
