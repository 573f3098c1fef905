module.exports=[17734,a=>a.a(async(b,c)=>{try{var d=await a.y("@prisma/client-2c3a283f134fdcb6/runtime/query_compiler_fast_bg.postgresql.wasm-base64.mjs");a.n(d),c()}catch(a){c(a)}},!0)];

//# sourceMappingURL=19bi_client_runtime_query_compiler_fast_bg_postgresql_wasm-base64_mjs_19w6fdhh8135g._.js.map