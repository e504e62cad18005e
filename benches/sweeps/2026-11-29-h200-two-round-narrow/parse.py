import re, sys, collections
pat=re.compile(r'\s*(\d+x\d+x\d+)\s+(TN|RM|NN)\s+([\d.]+).*?\|.*?\|\s+\S+\s+\S+\s+([\d.]+)\s+(\S+)\s+(sm\d\d_\S+)(.*?)host')
rows=collections.defaultdict(list)
for f in sys.argv[1:]:
    tag=f.rsplit('/',1)[-1].rsplit('_',1)[0]
    for line in open(f):
        m=pat.match(line)
        if m:
            rows[(m.group(1),m.group(2))].append((tag,float(m.group(3)),m.group(4),m.group(5),m.group(6)+m.group(7).strip()[:30]))
for k in sorted(rows):
    print(k[0],k[1])
    for t in rows[k]: print('   ',t[0],t[1],'ratio',t[2],t[3],t[4])
