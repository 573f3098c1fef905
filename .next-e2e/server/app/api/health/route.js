var R=require("../../../chunks/[turbopack]_runtime.js")("server/app/api/health/route.js")
R.c("server/chunks/[externals]__0dqh8_ni2so_4._.js")
R.c("server/chunks/[root-of-the-server]__0zbl9x-x6qisn._.js")
R.c("server/chunks/_010ztoxp1nlwv._.js")
R.c("server/chunks/_next-internal_server_app_api_health_route_actions_1ryftkbeskq31.js")
R.m(61370)
module.exports=R.m(61370).exports
