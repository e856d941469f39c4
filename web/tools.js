// The teacher tools (own scenes, share links, settings, fault menu): helper TOOLS fills this in.
"use strict";
