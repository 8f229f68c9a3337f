#!/bin/bash
# A startup script that ignores a config it cannot read and starts with
# defaults: a sweep finds it carried on when app.conf is missing, unreadable
# or unreadable midway.
conf=$(cat app.conf 2>/dev/null) || conf="port=8080"
echo "starting with ${conf}"
