#!/usr/bin/env bash
# The public API's one error convention and its list (docs/api.md, issue 23),
# checked against the headers as they are: every function declared in
# include/stance/*.h carries STANCE_API (the export macro) and is listed in docs/api.md once, under its own header;
# nothing else is listed; every function that returns a stance_status takes
# `stance_error *err` as its last parameter and is listed as "status, err";
# every other one is listed with what it answers; the counts in the file's
# opening paragraph are the headers'.
set -euo pipefail
src=${STANCE_SOURCE:?}
python3 - "$src" <<'EOF'
import glob, os, re, sys
src = sys.argv[1]
decls = {}  # name -> (header, return type, parameters)
for path in sorted(glob.glob(os.path.join(src, 'include/stance/*.h'))):
    text = open(path).read()
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    text = re.sub(r'^\s*#[^\n]*', ' ', text, flags=re.M)
    for stmt in text.split(';'):
        stmt = ' '.join(stmt.split())
        stmt = stmt[stmt.rfind('}') + 1:].strip() if '}' in stmt else stmt
        stmt = stmt.replace('extern "C" {', '').strip()
        if stmt.startswith('typedef'):
            continue
        if re.match(r'^(.*?)\b(stance_\w+)\s*\(', stmt) and '(*' not in stmt and not stmt.startswith('STANCE_API '):
            sys.exit('FAIL %s: a declaration without STANCE_API (the export macro, base.h): %s' % (os.path.basename(path), stmt[:100]))
        stmt = stmt.replace('STANCE_API ', '', 1)
        m = re.match(r'^(.*?)\b(stance_\w+)\s*\((.*)\)$', stmt)
        if not m or '(*' in m.group(1):
            continue
        ret, name, params = m.group(1).strip(), m.group(2), m.group(3).strip()
        if name in decls:
            sys.exit('FAIL %s is declared twice (%s, %s)' % (name, decls[name][0], os.path.basename(path)))
        decls[name] = (os.path.basename(path), ret, params)
if len(decls) < 150:
    sys.exit('FAIL found only %d declarations: the parse is wrong' % len(decls))
doc = open(os.path.join(src, 'docs/api.md')).read()
listed, header, bad = {}, None, []
for line in doc.split('\n'):
    h = re.match(r'^### `([a-z_]+\.h)`$', line)
    if h:
        header = h.group(1)
        continue
    row = re.match(r'^\| `(stance_\w+)` \| (.*) \|$', line)
    if row:
        name, form = row.groups()
        if name in listed:
            bad.append('%s is listed twice' % name)
        listed[name] = (header, form)
for name, (hdr, ret, params) in sorted(decls.items()):
    if name not in listed:
        bad.append('%s (%s) is not in docs/api.md' % (name, hdr))
        continue
    lhdr, form = listed[name]
    if lhdr != hdr:
        bad.append('%s is listed under %s, declared in %s' % (name, lhdr, hdr))
    if ret == 'stance_status':
        if not re.search(r'(^|,)\s*stance_error \*err$', params):
            bad.append('%s returns a status but does not take stance_error *err last (%s)' % (name, params))
        if not form.startswith('status, err'):
            bad.append('%s returns a status, listed as "%s"' % (name, form))
    elif form.startswith('status'):
        bad.append('%s returns %s, listed as "%s"' % (name, ret, form))
for name in sorted(set(listed) - set(decls)):
    bad.append('%s is in docs/api.md but declared nowhere' % name)
n, ns = len(decls), sum(1 for d in decls.values() if d[1] == 'stance_status')
m = re.search(r'\((\d+) of them: (\d+) that can fail', doc)
if not m or (int(m.group(1)), int(m.group(2))) != (n, ns):
    bad.append('the opening count says %s, the headers have %d functions, %d that can fail' %
               (m.groups() if m else 'nothing', n, ns))
for b in bad:
    print('FAIL ' + b)
if bad:
    sys.exit(1)
print('ok   %d functions in %d headers, %d return a status and take err last, all listed' %
      (n, len({d[0] for d in decls.values()}), ns))
EOF
