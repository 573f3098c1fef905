module.exports=[17734,a=>a.a(async(e,s)=>{try{var r=await a.y("@prisma/client-2c3a283f134fdcb6/runtime/query_compiler_fast_bg.postgresql.wasm-base64.mjs");a.n(r),s()}catch(a){s(a)}},!0)];

//# sourceMappingURL=19bi_client_runtime_query_compiler_fast_bg_postgresql_wasm-base64_mjs_19w6fdhh8135g._.js.map