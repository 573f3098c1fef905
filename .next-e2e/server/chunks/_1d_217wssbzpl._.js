module.exports=[69449,s=>{"use strict";async function e(){let{env:e}=await s.A(55102);e()}s.s(["register",0,e])},55102,s=>{s.v(e=>Promise.all(["server/chunks/[externals]__0fkbojr0i_-oq._.js","server/chunks/lib_env_ts_03s8n9_g1tm1m._.js"].map(e=>s.l(e))).then(()=>e(53998)))}];

//# sourceMappingURL=_1d_217wssbzpl._.js.map