var R=require("../../../chunks/[turbopack]_runtime.js")("server/app/api/products/route.js")
R.c("server/chunks/[externals]__02w55blwozaju._.js")
R.c("server/chunks/[root-of-the-server]__0zbl9x-x6qisn._.js")
R.c("server/chunks/_02-r5qg1hua_p._.js")
R.c("server/chunks/_next-internal_server_app_api_products_route_actions_18pcx8boix7ni.js")
R.m(86577)
module.exports=R.m(86577).exports
