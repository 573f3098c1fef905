module.exports=[91614,s=>{"use strict";s.s([])}];

//# sourceMappingURL=_next-internal_server_app_api_products_route_actions_18pcx8boix7ni.js.map