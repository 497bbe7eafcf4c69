/**
 * Runs the code (argv[1]) as `code.py` and, like a notebook cell, writes the `repr` of a final
 * expression to fd 3. Tracebacks start at the code (the driver's own frame is cut) and show its
 * lines (the source goes into `linecache`).
 */
export const PYTHON_DRIVER = `import ast, linecache, os, sys, traceback
_src = sys.argv.pop(1)
sys.argv[0] = 'code.py'
linecache.cache['code.py'] = (len(_src), None, _src.splitlines(True), 'code.py')
try:
    _tree = ast.parse(_src, 'code.py', 'exec')
except SyntaxError as _e:
    traceback.print_exception(type(_e), _e, None)
    sys.exit(1)
_last = None
if _tree.body and isinstance(_tree.body[-1], ast.Expr):
    _last = ast.Expression(_tree.body.pop().value)
_g = {'__name__': '__main__', '__builtins__': __builtins__}
try:
    exec(compile(_tree, 'code.py', 'exec'), _g)
    if _last is not None:
        _v = eval(compile(_last, 'code.py', 'eval'), _g)
        if _v is not None:
            _out = repr(_v)[:100000].encode('utf-8', 'replace')
            try:
                while _out:
                    _out = _out[os.write(3, _out):]
            except OSError:
                pass
except SystemExit:
    raise
except BaseException as _e:
    traceback.print_exception(type(_e), _e, _e.__traceback__.tb_next)
    sys.exit(1)
`;
