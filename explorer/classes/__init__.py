"""A class: a teacher's page and the learners' (the Class page), kept in the run store every process shares."""
