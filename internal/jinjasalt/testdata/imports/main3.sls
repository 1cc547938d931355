a: 1
{% include "lib3.jinja" %}
