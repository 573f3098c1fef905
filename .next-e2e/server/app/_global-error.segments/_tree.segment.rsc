1:[["children",{"s":"__PAGE__","h":176}]]
0:{"b":"5C1-kt5R7ojQRNZPMJEmt","t":{"t":{"s":"","h":80,"c":"$Q1"}}}
