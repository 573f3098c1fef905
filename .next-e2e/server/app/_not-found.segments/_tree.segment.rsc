:HL["/_next/static/chunks/342riuulw7q_m.css","style"]
2:[["children",{"s":"__PAGE__","h":160}]]
1:[["children",{"s":"/_not-found","h":96,"c":"$Q2"}]]
0:{"b":"5C1-kt5R7ojQRNZPMJEmt","t":{"t":{"s":"","h":80,"c":"$Q1"}}}
