"""The Class page's session keys, declared once: see explorer/keys.py."""

from __future__ import annotations

NAME = "cls_name"  # the teacher's name for a new class
DAYS = "cls_days"  # how long it lasts
OPENED = "cls_opened"  # the class this session just opened (its links are shown on this run only)
JOIN_NAME = "cls_join_name"  # the name a learner types to join
POST_KIND = "cls_post_kind"
POST_TITLE = "cls_post_title"
POST_PROGRAM = "cls_post_program"
POST_DATASET = "cls_post_dataset"
POST_TARGET = "cls_post_target"
SHOW = "cls_show"  # the learner the teacher puts on the big screen
PROBLEM = "cls_problem"  # what the last action could not do, said on the next run
HANDED_IN = "cls_handed_in"  # what this session last handed in from the Practice page (not written again)
SEEN_POST = "cls_seen_post"  # when the post a learner's page shows was posted (a newer one reruns the page)
IN_CLASS = "cls_in_class"  # (code, the class, the learner) as the Practice page found them: hand-ins need no read
OWED = "cls_owed"  # the Practice page could not hand the last check in (the store was down): tried again
VERSION = "cls_version"  # the version of the last hand-in of this session (room.next_version)
