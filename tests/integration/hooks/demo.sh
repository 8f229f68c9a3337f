# shellcheck shell=bash disable=SC2154,SC2034 # variables of run_case.sh
# The demo: examples/startup-failure staged in @TMP@/app, cache_hub/ owned by
# root (0755) when root can arrange it, else read-only (0555) as demo.sh does.

stage_demo_app() {
	mkdir -p "$TMP/app"
	cp "$source/examples/startup-failure/"{start_app.sh,start_app_noexec.sh,launch_ui.sh,webui.py} \
		"$TMP/app/"
	chmod 0644 "$TMP/app/"*
	mkdir -p "$TMP/app/cache_hub"
	chmod 0755 "$TMP/app" "$TMP/app/cache_hub"
}

case_root_setup() {
	stage_demo_app
}

case_begin() {
	[ -d "$TMP/app" ] || stage_demo_app
	if [ "$(id -u)" -ne 0 ] && [ -O "$TMP/app/cache_hub" ]; then
		chmod 0555 "$TMP/app/cache_hub"
	fi
}

# As root the app saves an (empty) placeholder; remove it between runs.
case_reset() {
	rm -f "$TMP/app/cache_hub/model.pth" 2>/dev/null || true
}

case_end() {
	chmod -R u+w "$TMP/app" 2>/dev/null || true
}
