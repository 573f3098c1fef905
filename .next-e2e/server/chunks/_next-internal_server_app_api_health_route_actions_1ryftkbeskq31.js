module.exports=[9588,s=>{"use strict";s.s([])}];

//# sourceMappingURL=_next-internal_server_app_api_health_route_actions_1ryftkbeskq31.js.map